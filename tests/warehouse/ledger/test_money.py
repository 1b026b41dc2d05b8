from __future__ import annotations

import pytest
from sqlalchemy import func, select, text

from warehouse.ledger import Agents, Debit, Invoices, Money, TopupRefused, check_consistency
from warehouse.ledger.tables import ledger_entries


def entry_count(engine) -> int:
    with engine.connect() as conn:
        return conn.scalar(select(func.count()).select_from(ledger_entries))


def test_topup_credits_the_invoice_amount_once(engine, agent):
    Invoices(engine).record("aa" * 32, "lnbcrt1", 500, "credit", expires_at=4_000_000_000, agent_pk=agent["id"])
    money = Money(engine)
    assert money.credit_topup(agent["id"], "aa" * 32) == 500
    assert money.credit_topup(agent["id"], "aa" * 32) is None
    assert money.balance(agent["id"]) == 500
    invoice = Invoices(engine).get("aa" * 32)
    assert invoice["status"] == "credited" and invoice["credited_at"] is not None
    assert entry_count(engine) == 1 and check_consistency(engine) == []


def test_topup_refuses_unknown_foreign_and_query_invoices(engine, agent):
    other, _ = Agents(engine).register("other")
    invoices, money = Invoices(engine), Money(engine)
    invoices.record("bb" * 32, "lnbcrt1", 500, "credit", expires_at=4_000_000_000, agent_pk=other["id"])
    invoices.record("cc" * 32, "lnbcrt1", 50, "query", expires_at=4_000_000_000, module="regime")
    for payment_hash in ("dd" * 32, "bb" * 32, "cc" * 32):
        with pytest.raises(TopupRefused):
            money.credit_topup(agent["id"], payment_hash)
    assert money.balance(agent["id"]) == 0 and entry_count(engine) == 0


def test_an_invoice_without_an_agent_is_credited_to_whoever_claims_it_first(engine, agent):
    Invoices(engine).record("ee" * 32, "lnbcrt1", 70, "credit", expires_at=4_000_000_000)
    assert Money(engine).credit_topup(agent["id"], "ee" * 32) == 70
    assert Invoices(engine).get("ee" * 32)["agent_id"] == agent["id"]


def test_debit_is_guarded_and_writes_nothing_when_the_balance_is_short(engine, agent, fund):
    fund(agent["id"], 120)
    money = Money(engine)
    assert money.debit_for_query(agent["id"], 50, "regime", "r1").balance_sats == 70
    assert money.debit_for_query(agent["id"], 50, "regime", "r2") == Debit("balance", 20, 20)
    assert money.debit_for_query(agent["id"], 50, "regime", "r3") is None
    assert money.balance(agent["id"]) == 20
    assert entry_count(engine) == 3  # the topup and two debits; the refused one left no trace
    with engine.connect() as conn:
        last = conn.execute(select(ledger_entries).order_by(ledger_entries.c.id.desc())).mappings().first()
    assert (last["amount_sats"], last["balance_after"], last["kind"], last["module"]) == (-50, 20, "query", "regime")
    assert check_consistency(engine) == []


def test_repeating_a_request_id_charges_once(engine, agent, fund):
    fund(agent["id"], 100)
    money = Money(engine)
    assert money.debit_for_query(agent["id"], 50, "regime", "same").balance_sats == 50
    assert money.debit_for_query(agent["id"], 50, "regime", "same").balance_sats == 50
    assert money.balance(agent["id"]) == 50 and entry_count(engine) == 2


@pytest.mark.parametrize("price", [0, -5, 2.5, True])
def test_debit_rejects_non_positive_or_non_integer_prices(engine, agent, price):
    with pytest.raises(ValueError):
        Money(engine).debit_for_query(agent["id"], price, "regime", "r")


def test_refund_gives_the_debit_back_once(engine, agent, fund):
    fund(agent["id"], 100)
    money = Money(engine)
    money.debit_for_query(agent["id"], 60, "regime", "r1")
    assert money.refund(agent["id"], "r1") is True
    assert money.refund(agent["id"], "r1") is False
    assert money.refund(agent["id"], "never-charged") is False
    assert money.balance(agent["id"]) == 100 and check_consistency(engine) == []


def test_refund_of_another_agents_debit_is_refused(engine, agent, fund):
    other, _ = Agents(engine).register("other")
    fund(agent["id"], 100)
    Money(engine).debit_for_query(agent["id"], 60, "regime", "r1")
    assert Money(engine).refund(other["id"], "r1") is False
    assert Money(engine).balance(other["id"]) == 0


def test_the_database_refuses_a_negative_balance(engine, agent):
    with pytest.raises(Exception):
        with engine.begin() as conn:
            conn.execute(text("UPDATE agents SET balance_sats = -1 WHERE id = :id"), {"id": agent["id"]})
    assert Money(engine).balance(agent["id"]) == 0


def test_consistency_check_reports_a_balance_changed_without_an_entry(engine, agent, fund):
    fund(agent["id"], 100)
    with engine.begin() as conn:
        conn.execute(text("UPDATE agents SET balance_sats = 150 WHERE id = :id"), {"id": agent["id"]})
    problems = check_consistency(engine)
    assert any("sum of entries 100" in p for p in problems)
    assert any("latest entry says 100" in p for p in problems)


def test_invoices_record_get_and_settle(engine, agent):
    invoices = Invoices(engine)
    invoices.record("ff" * 32, "lnbcrt1", 250, "query", expires_at=4_000_000_000, module="regime")
    invoice = invoices.get("ff" * 32)
    assert (invoice["status"], invoice["amount_sats"], invoice["module"], invoice["agent_id"]) == (
        "open", 250, "regime", None)
    assert invoice["expires_at"].timestamp() == 4_000_000_000
    invoices.mark_settled("ff" * 32)
    assert invoices.get("ff" * 32)["status"] == "settled"
    assert invoices.get("00" * 32) is None
    with pytest.raises(ValueError):
        invoices.record("ab" * 32, "lnbcrt1", 250, "tip", expires_at=4_000_000_000)
