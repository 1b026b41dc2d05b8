"""The daily spending cap an owner sets: debits within it go through, the one that would pass it is refused with
nothing written, a refund makes room again, spend from before the cap was set counts, a retry of a charged request
is still answered with its charge, and racing requests of one agent never pass the cap together."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from warehouse.ledger import Agents, Money, check_consistency
from warehouse.ledger.caps import DailyCapReached


def test_debits_stop_at_the_cap_and_a_refund_makes_room(engine, agent, fund):
    fund(agent["id"], 1000)
    Agents(engine).set_daily_cap(agent["id"], 25)
    money = Money(engine)
    assert money.debit_for_query(agent["id"], 10, "vix", "r1", capped=True) is not None
    assert money.debit_for_query(agent["id"], 10, "vix", "r2", capped=True) is not None
    with pytest.raises(DailyCapReached) as refused:
        money.debit_for_query(agent["id"], 10, "vix", "r3", capped=True)
    reached = refused.value.reached
    assert (reached.cap_sats, reached.spent_sats, reached.price_sats) == (25, 20, 10)
    assert money.balance(agent["id"]) == 980  # nothing written for the refused one
    assert money.debit_for_query(agent["id"], 10, "vix", "r2", capped=True).balance_sats == 980  # a retry: its charge
    assert money.refund(agent["id"], "r2")
    assert money.debit_for_query(agent["id"], 10, "vix", "r3", capped=True) is not None
    assert money.balance(agent["id"]) == 980 and check_consistency(engine) == []


def test_spend_before_the_cap_was_set_counts(engine, agent, fund):
    fund(agent["id"], 1000)
    money = Money(engine)
    assert money.debit_for_query(agent["id"], 40, "vix", "before") is not None  # no cap yet
    Agents(engine).set_daily_cap(agent["id"], 50)
    with pytest.raises(DailyCapReached):
        money.debit_for_query(agent["id"], 20, "vix", "after", capped=True)
    assert money.debit_for_query(agent["id"], 10, "vix", "after", capped=True) is not None
    Agents(engine).set_daily_cap(agent["id"], None)  # removed: no limit
    assert money.debit_for_query(agent["id"], 500, "vix", "big", capped=True) is not None


def test_racing_requests_of_one_agent_never_pass_the_cap_together(engine, agent, fund):
    fund(agent["id"], 10_000)
    Agents(engine).set_daily_cap(agent["id"], 100)
    money = Money(engine)

    def debit(i: int) -> bool:
        try:
            return money.debit_for_query(agent["id"], 10, "vix", f"race-{i}", capped=True) is not None
        except DailyCapReached:
            return False

    with ThreadPoolExecutor(8) as pool:
        paid = list(pool.map(debit, range(40)))
    assert sum(paid) == 10 and money.balance(agent["id"]) == 9_900
    assert check_consistency(engine) == []


def test_a_cap_is_a_positive_whole_number(engine, agent):
    for wrong in (0, -5, 2.5, True):
        with pytest.raises(ValueError):
            Agents(engine).set_daily_cap(agent["id"], wrong)
