"""Commitments and subscriptions paid from the balance, atomically, with the rules of warehouse/ledger/plans.py."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from warehouse.ledger import PlanRefused, check_consistency, commitment_plans, subscription_plans
from warehouse.ledger.tables import commitments, ledger_entries


def entries(engine, reference_prefix: str) -> list[tuple]:
    e = ledger_entries.c
    with engine.connect() as conn:
        return conn.execute(select(e.kind, e.pool, e.amount_sats).where(e.reference.like(f"{reference_prefix}%"))
                            .order_by(e.id)).all()


def test_a_commitment_buys_discounted_credits_for_its_term(engine, agent, fund, money, plans, clock):
    fund(agent["id"], 1000)
    result = plans.activate_commitment(agent["id"], "small", "com-1")
    assert (result["paid_sats"], result["credits_sats"], result["balance_sats"]) == (800, 1000, 200)
    assert result["usable_until"] == clock() + timedelta(days=90)
    assert entries(engine, "com-1") == [("purchase", "balance", -800), ("grant", "commitment", 1000)]
    status = plans.commitment_status(agent["id"])
    assert status["active"] and status["credits_remaining_sats"] == 1000 and len(status["activations"]) == 1
    assert check_consistency(engine) == []


def test_an_unaffordable_plan_writes_nothing(engine, agent, fund, money, plans):
    fund(agent["id"], 799)
    with pytest.raises(PlanRefused) as refused:
        plans.activate_commitment(agent["id"], "small", "com-1")
    assert refused.value.code == "insufficient_balance" and refused.value.details["balance_sats"] == 799
    with pytest.raises(PlanRefused):
        plans.subscribe(agent["id"], "pro", "sub-1")
    assert money.balance(agent["id"]) == 799 and entries(engine, "com-1") == entries(engine, "sub-1") == []
    with engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(commitments)) == 0


def test_a_second_commitment_adds_credits_and_extends_the_pool(engine, agent, fund, money, plans, clock):
    fund(agent["id"], 800 + 3000 + 800)
    plans.activate_commitment(agent["id"], "small", "com-1")
    clock.advance(days=10)
    result = plans.activate_commitment(agent["id"], "large", "com-2")  # 5000 credits for 3000 sats
    assert result["credits_sats"] == 6000 and result["paid_sats"] == 3000
    assert result["usable_until"] == clock() + timedelta(days=180)
    clock.advance(days=181)
    assert plans.commitment_status(agent["id"])["active"] is False
    plans.activate_commitment(agent["id"], "small", "com-3")  # the ended 6000 are forfeited first
    assert plans.commitment_status(agent["id"])["credits_remaining_sats"] == 1000
    assert [k for k, *_ in entries(engine, "expiry")] == ["expiry"]
    assert check_consistency(engine) == []


def test_subscribing_starts_a_period_with_allocation_and_burst(engine, agent, fund, money, plans, clock):
    fund(agent["id"], 600)
    result = plans.subscribe(agent["id"], "basic", "sub-1")
    assert result["renewed"] is False and result["ends_at"] == clock() + timedelta(days=30)
    assert result["allocation"]["remaining_sats"] == 600 and result["burst_credits"]["remaining_sats"] == 200
    assert entries(engine, "sub-1") == [("purchase", "balance", -500), ("grant", "subscription", 600),
                                        ("grant", "burst", 200)]
    status = plans.subscription_status(agent["id"])
    assert status["active"] and status["plan"] == "basic" and status["periods_paid"] == 1


def test_renewing_while_subscribed_adds_a_period_and_its_credits(engine, agent, fund, money, plans, clock):
    fund(agent["id"], 1000)
    first = plans.subscribe(agent["id"], "basic", "sub-1")
    clock.advance(days=20)
    renewed = plans.subscribe(agent["id"], "basic", "sub-2")
    assert renewed["renewed"] is True and renewed["ends_at"] == first["ends_at"] + timedelta(days=30)
    assert renewed["started_at"] == first["started_at"]
    assert renewed["allocation"]["remaining_sats"] == 1200 and renewed["burst_credits"]["remaining_sats"] == 400
    assert plans.subscription_status(agent["id"])["periods_paid"] == 2


def test_another_plan_waits_for_the_current_one_to_end(engine, agent, fund, money, plans, clock):
    fund(agent["id"], 3000)
    plans.subscribe(agent["id"], "basic", "sub-1")
    with pytest.raises(PlanRefused) as refused:
        plans.subscribe(agent["id"], "pro", "sub-2")
    assert refused.value.code == "plan_change_not_allowed" and money.balance(agent["id"]) == 2500
    clock.advance(days=30)
    assert plans.subscribe(agent["id"], "pro", "sub-3")["plan"] == "pro"


def test_after_a_lapse_allocation_is_forfeited_and_burst_waits_for_the_next_subscription(
        engine, agent, fund, money, plans, clock):
    fund(agent["id"], 1000)
    plans.subscribe(agent["id"], "basic", "sub-1")
    clock.advance(days=45)
    status = plans.subscription_status(agent["id"])
    assert status["active"] is False and status["allocation"]["remaining_sats"] == 0
    assert status["burst_credits"] == {"remaining_sats": 200, "usable": False,
                                       "usable_until": status["ends_at"]}
    again = plans.subscribe(agent["id"], "basic", "sub-2")
    assert again["allocation"]["remaining_sats"] == 600  # the old 600 were forfeited
    assert again["burst_credits"] == {"remaining_sats": 400, "usable": True, "usable_until": again["ends_at"]}
    assert [(k, p, a) for k, p, a in entries(engine, "expiry")] == [("expiry", "subscription", -600)]
    assert check_consistency(engine) == []


def test_concurrent_purchases_never_overspend_the_balance(engine, agent, fund, money, plans):
    fund(agent["id"], 800 * 3 + 100)
    start = threading.Barrier(6)

    def buy(i: int) -> bool:
        start.wait()
        try:
            plans.activate_commitment(agent["id"], "small", f"com-{i}")
            return True
        except PlanRefused:
            return False

    with ThreadPoolExecutor(6) as pool:
        assert sum(pool.map(buy, range(6))) == 3
    assert money.balance(agent["id"]) == 100
    assert plans.commitment_status(agent["id"])["credits_remaining_sats"] == 3000
    assert check_consistency(engine) == []


@pytest.mark.parametrize("terms", [
    {"credits_sats": 1000, "discount_percent": 50, "term_days": 90},  # outside 20-40%
    {"credits_sats": 1000, "discount_percent": 19, "term_days": 90},
    {"credits_sats": 1000.0, "discount_percent": 20, "term_days": 90},  # amounts are integers
])
def test_commitment_terms_are_checked(terms):
    with pytest.raises(ValueError):
        commitment_plans({"bad": terms})


def test_subscription_terms_are_checked():
    with pytest.raises(ValueError):
        subscription_plans({"bad": {"price_sats": 0, "period_days": 30, "allocation_sats": 1, "burst_sats": 1}})
    with pytest.raises(ValueError):
        subscription_plans({"bad": {"price_sats": 9.5, "period_days": 30, "allocation_sats": 1, "burst_sats": 1}})
