"""Low-balance warnings: one per fall below the owner's level, re-armed once the balance is back at or above it
(by the sweep, or by the next debit that crosses the level again), none for a replayed debit, one for a debit
whose job was lost (the sweep), and one only when several ask at once. The events they become share the event log
with the scanner: concurrent writers get distinct, gapless sequence numbers (PostgreSQL's advisory lock)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select

from warehouse.events import EventLog
from warehouse.ledger import Money
from warehouse.ledger.low_balance import MAX_LEVEL_SATS, LowBalance
from warehouse.ledger.tables import events


def warn(engine, agent_pk: int, request_id: str | None = None) -> dict | None:
    with engine.begin() as conn:
        return LowBalance(engine).warning(conn, agent_pk, request_id)


def test_one_warning_per_fall_and_a_credit_re_arms_it(engine, agent, fund):
    fund(agent["id"], 1000)
    LowBalance(engine).set_level(agent["id"], 500)
    money = Money(engine)
    assert money.debit_for_query(agent["id"], 400, "vix", "r1").balance_sats == 600
    assert warn(engine, agent["id"], "r1") is None and LowBalance(engine).due() == []  # still above
    assert money.debit_for_query(agent["id"], 200, "vix", "r2").balance_sats == 400
    event = warn(engine, agent["id"], "r2")
    assert event["type"] == "account.balance_low" and event["audience"] == agent["agent_id"]
    assert event["figures"] == [{"field": "balance_sats", "value": 400}, {"field": "low_balance_sats", "value": 500}]
    assert warn(engine, agent["id"], "r2") is None  # the job ran twice: one warning
    assert money.debit_for_query(agent["id"], 100, "vix", "r3").balance_sats == 300
    assert warn(engine, agent["id"], None) is None and LowBalance(engine).due() == []  # still the same fall
    fund(agent["id"], 300)  # 600: above again; the sweep re-arms
    assert LowBalance(engine).due() == [agent["id"]]
    assert warn(engine, agent["id"]) is None and LowBalance(engine).due() == []
    assert money.debit_for_query(agent["id"], 200, "vix", "r4").balance_sats == 400
    assert warn(engine, agent["id"], "r4")["figures"][0]["value"] == 400  # a new fall, a new warning


def test_a_debit_that_crosses_again_before_any_sweep_is_a_new_fall(engine, agent, fund):
    fund(agent["id"], 1000)
    LowBalance(engine).set_level(agent["id"], 500)
    money = Money(engine)
    money.debit_for_query(agent["id"], 600, "vix", "r1")
    assert warn(engine, agent["id"], "r1") is not None
    fund(agent["id"], 600)  # 1000, no sweep in between
    money.debit_for_query(agent["id"], 600, "vix", "r2")
    assert warn(engine, agent["id"], "r2") is not None
    assert warn(engine, agent["id"], "r1") is None  # the first debit's job, late: its fall was warned


def test_the_sweep_warns_when_the_debits_job_was_lost_and_after_a_level_is_set_above_the_balance(engine, agent, fund):
    fund(agent["id"], 1000)
    low = LowBalance(engine)
    low.set_level(agent["id"], 500)
    Money(engine).debit_for_query(agent["id"], 600, "vix", "lost")
    assert low.due() == [agent["id"]]
    assert warn(engine, agent["id"]) is not None and low.due() == []
    low.set_level(agent["id"], 450)  # a new level: warned afresh if the balance is below it
    assert low.due() == [agent["id"]] and warn(engine, agent["id"]) is not None
    low.set_level(agent["id"], None)
    assert low.due() == [] and warn(engine, agent["id"]) is None


def test_several_asking_at_once_send_one_warning(engine, agent, fund):
    fund(agent["id"], 1000)
    LowBalance(engine).set_level(agent["id"], 500)
    Money(engine).debit_for_query(agent["id"], 600, "vix", "r1")
    with ThreadPoolExecutor(6) as pool:
        sent = list(pool.map(lambda i: warn(engine, agent["id"], "r1" if i % 2 else None), range(12)))
    assert sum(e is not None for e in sent) == 1


def test_concurrent_event_writers_get_distinct_gapless_sequence_numbers(engine):
    def write(i: int) -> list[str]:
        with engine.begin() as conn:
            return [e["id"] for e in EventLog.insert(conn, [{"type": "account.balance_low", "audience": f"a{i}",
                                                             "occurred_at": "2026-11-29T12:00:00+00:00"}] * 3)]

    with ThreadPoolExecutor(6) as pool:
        ids = [i for batch in pool.map(write, range(12)) for i in batch]
    with engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(events)) == 36
    assert sorted(int(i.split("-")[0]) for i in ids) == list(range(1, 37))


@pytest.mark.parametrize("level", [0, -5, MAX_LEVEL_SATS + 1, True, 2.5])
def test_a_level_is_a_whole_number_of_sats_in_range(engine, agent, level):
    with pytest.raises(ValueError):
        LowBalance(engine).set_level(agent["id"], level)
