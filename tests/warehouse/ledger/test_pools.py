"""Which pool pays: the documented order, whole prices only, ended pools skipped, refunds to the pool that
paid, and no overspending when many debits race across the pools."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import select

from warehouse.ledger import Agents, Money, check_consistency
from warehouse.ledger.tables import POOL_ORDER, ledger_entries


def pools(money: Money, agent_pk: int) -> dict[str, int]:
    return {p["pool"]: p["remaining_sats"] for p in money.pools(agent_pk)}


def give_referral_credits(engine, fund, referrer: dict, sats: int) -> None:
    """A referred agent spends 10x `sats` from its balance, so the referrer earns `sats`."""
    referred, _ = Agents(engine).register("referred", referral_code=referrer["referral_code"])
    fund(referred["id"], sats * 10)
    Money(engine).debit_for_query(referred["id"], sats * 10, "vix", f"ref-spend-{referred['id']}")


def test_every_pool_pays_in_the_documented_order(engine, agent, fund, money, plans):
    fund(agent["id"], 1500)
    plans.subscribe(agent["id"], "basic", "sub-1")  # 500: allocation 600, burst 200
    plans.activate_commitment(agent["id"], "small", "com-1")  # 800: 1000 credits
    give_referral_credits(engine, fund, agent, 100)
    assert pools(money, agent["id"]) == {"subscription": 600, "burst": 200, "commitment": 1000, "referral": 100,
                                         "balance": 200}
    paid_by = [money.debit_for_query(agent["id"], 100, "vix", f"q{i}").pool for i in range(21)]
    assert paid_by == ["subscription"] * 6 + ["burst"] * 2 + ["commitment"] * 10 + ["referral"] + ["balance"] * 2
    assert money.debit_for_query(agent["id"], 100, "vix", "q-none") is None
    assert set(pools(money, agent["id"]).values()) == {0}
    assert check_consistency(engine) == []


def test_a_pool_short_of_the_whole_price_is_skipped_not_combined(engine, agent, fund, money, plans):
    fund(agent["id"], 1000)
    plans.subscribe(agent["id"], "basic", "sub-1")
    money.debit_for_query(agent["id"], 250, "regime", "a")
    money.debit_for_query(agent["id"], 250, "regime", "b")  # 100 of the allocation left
    debit = money.debit_for_query(agent["id"], 250, "regime", "c")
    assert (debit.pool, debit.pool_left_sats, debit.balance_sats) == ("balance", 250, 250)
    assert money.debit_for_query(agent["id"], 100, "vix", "d").pool == "subscription"


def test_ended_pools_are_skipped_and_ended_allocation_is_forfeited(engine, agent, fund, money, plans, clock):
    fund(agent["id"], 2000)
    plans.subscribe(agent["id"], "basic", "sub-1")
    plans.activate_commitment(agent["id"], "small", "com-1")
    clock.advance(days=31)  # the subscription ended; the commitment runs 90 days
    assert money.debit_for_query(agent["id"], 50, "vix", "q1").pool == "commitment"
    shown = {p["pool"]: p for p in money.pools(agent["id"])}
    assert shown["subscription"]["remaining_sats"] == 0  # written off
    assert shown["burst"]["remaining_sats"] == 200 and shown["burst"]["usable"] is False  # kept, not usable
    with engine.connect() as conn:
        expiry = conn.execute(select(ledger_entries).where(ledger_entries.c.kind == "expiry")).mappings().all()
    assert [(e["pool"], e["amount_sats"]) for e in expiry] == [("subscription", -600)]
    money.pools(agent["id"])  # a second look writes nothing more
    with engine.connect() as conn:
        assert len(conn.execute(select(ledger_entries).where(ledger_entries.c.kind == "expiry")).all()) == 1
    clock.advance(days=60)  # the commitment ended too
    assert money.debit_for_query(agent["id"], 50, "vix", "q2").pool == "balance"
    assert check_consistency(engine) == []


def test_a_refund_returns_the_sats_to_the_pool_that_paid(engine, agent, fund, money, plans):
    fund(agent["id"], 1000)
    plans.subscribe(agent["id"], "basic", "sub-1")
    for request, expected in (("from-sub", "subscription"), ("from-balance", None)):
        if expected is None:
            for i in range(12):  # empty the allocation and the burst credits first
                money.debit_for_query(agent["id"], 50, "vix", f"drain{i}")
            for i in range(4):
                money.debit_for_query(agent["id"], 50, "vix", f"drain-burst{i}")
        before = pools(money, agent["id"])
        debit = money.debit_for_query(agent["id"], 50, "vix", request)
        assert debit.pool == (expected or "balance")
        assert money.refund(agent["id"], request) is True
        assert money.refund(agent["id"], request) is False
        assert pools(money, agent["id"]) == before
    with engine.connect() as conn:
        refunds = conn.execute(select(ledger_entries.c.pool).where(ledger_entries.c.kind == "refund")).scalars().all()
    assert sorted(refunds) == ["balance", "subscription"]
    assert check_consistency(engine) == []


def test_a_refund_into_an_ended_pool_is_forfeited_again_later(engine, agent, fund, money, plans, clock):
    fund(agent["id"], 1000)
    plans.subscribe(agent["id"], "basic", "sub-1")
    money.debit_for_query(agent["id"], 50, "vix", "late")
    clock.advance(days=31)
    money.pools(agent["id"])  # forfeits 550
    assert money.refund(agent["id"], "late") is True  # the sats go back where they came from ...
    assert pools(money, agent["id"])["subscription"] == 0  # ... and that pool has ended: forfeited again
    assert check_consistency(engine) == []


def test_concurrent_debits_across_pools_never_overspend(engine, agent, fund, money, plans):
    price = 10
    fund(agent["id"], 500 + 800 + 700)
    plans.subscribe(agent["id"], "basic", "sub-1")  # 600 + 200
    plans.activate_commitment(agent["id"], "small", "com-1")  # 1000
    total = sum(pools(money, agent["id"]).values())
    assert total == 600 + 200 + 1000 + 700
    start = threading.Barrier(8)

    def spend(worker: int) -> list[str]:
        start.wait()
        debits = [money.debit_for_query(agent["id"], price, "vix", f"w{worker}-{i}") for i in range(40)]
        return [d.pool for d in debits if d is not None]

    with ThreadPoolExecutor(8) as pool:
        paid = [p for batch in pool.map(spend, range(8)) for p in batch]
    assert len(paid) == total // price
    assert {p: paid.count(p) for p in POOL_ORDER if p != "referral"} == {
        "subscription": 60, "burst": 20, "commitment": 100, "balance": 70}
    assert set(pools(money, agent["id"]).values()) == {0}
    assert check_consistency(engine) == []


def test_concurrent_refunds_of_one_pool_debit_give_back_once(engine, agent, fund, money, plans):
    fund(agent["id"], 500)
    plans.subscribe(agent["id"], "basic", "sub-1")
    money.debit_for_query(agent["id"], 50, "vix", "once")
    start = threading.Barrier(6)

    def refund(_):
        start.wait()
        return money.refund(agent["id"], "once")

    with ThreadPoolExecutor(6) as pool:
        assert sum(pool.map(refund, range(6))) == 1
    assert pools(money, agent["id"])["subscription"] == 600
    assert check_consistency(engine) == []


def test_a_repeated_request_id_reports_the_pool_that_paid(engine, agent, fund, money, plans):
    fund(agent["id"], 600)
    plans.subscribe(agent["id"], "basic", "sub-1")
    first = money.debit_for_query(agent["id"], 50, "vix", "same")
    again = money.debit_for_query(agent["id"], 50, "vix", "same")
    assert first == again and first.pool == "subscription" and first.pool_left_sats == 550


def test_consistency_check_reports_a_pool_changed_without_an_entry(engine, agent, fund, plans):
    fund(agent["id"], 500)
    plans.subscribe(agent["id"], "basic", "sub-1")
    with engine.begin() as conn:
        conn.exec_driver_sql(f"UPDATE agent_pools SET remaining_sats = 999 WHERE agent_id = {agent['id']} "
                             "AND pool = 'burst'")
    problems = check_consistency(engine)
    assert any("pool burst holds 999 != sum of entries 200" in p for p in problems)
