"""Tier upgrades paid over Lightning (claimed once, recorded as a credit and a matching debit), the effective
tier at a moment, and key rotation that leaves exactly one live key."""
from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from warehouse.ledger import Agents, Invoices, KeyRevoked, TierPrice, UpgradeRefused, check_consistency
from warehouse.ledger.tables import api_keys, ledger_entries

PRICES = {"premium": TierPrice(20_000, timedelta(days=30)), "institutional": TierPrice(100_000, timedelta(days=30))}


def paid_upgrade(engine, agent_pk: int | None, tier: str) -> str:
    payment_hash = uuid.uuid4().hex * 2
    Invoices(engine).record(payment_hash, "lnbcrt-test", PRICES[tier].price_sats, "upgrade",
                            expires_at=4_000_000_000, agent_pk=agent_pk, tier=tier)
    return payment_hash


def test_an_upgrade_sets_the_tier_until_now_plus_its_duration_once(engine, agent, money, clock):
    payment_hash = paid_upgrade(engine, agent["id"], "premium")
    result = money.claim_upgrade(agent["id"], payment_hash, PRICES)
    assert (result["tier"], result["tier_expires_at"], result["paid_sats"]) == (
        "premium", clock() + timedelta(days=30), 20_000)
    assert money.claim_upgrade(agent["id"], payment_hash, PRICES) is None  # a proof applies once
    e = ledger_entries.c
    with engine.connect() as conn:
        rows = conn.execute(select(e.kind, e.pool, e.amount_sats, e.balance_after, e.reference)
                            .order_by(e.id)).all()
    # received and spent on the tier: the balance is unchanged and the entries still sum to it
    assert rows == [("upgrade_payment", "balance", 20_000, 20_000, payment_hash),
                    ("upgrade", "balance", -20_000, 0, payment_hash)]
    assert money.balance(agent["id"]) == 0 and check_consistency(engine) == []


def test_the_tier_ends_at_its_expiry_everywhere_agents_are_loaded(engine, money, clock):
    agents = Agents(engine, now=clock)
    agent, key = agents.register("scout")
    money.claim_upgrade(agent["id"], paid_upgrade(engine, agent["id"], "premium"), PRICES)
    assert agents.by_key(key)["tier"] == "premium"
    clock.advance(days=30, seconds=-1)
    assert agents.get(agent["id"])["tier"] == "premium"
    clock.advance(seconds=1)
    for loaded in (agents.by_key(key), agents.get(agent["id"])):
        assert loaded["tier"] == "free" and loaded["tier_expires_at"] is None


def test_paying_for_the_active_tier_extends_it(engine, agent, money, clock):
    first = money.claim_upgrade(agent["id"], paid_upgrade(engine, agent["id"], "premium"), PRICES)
    clock.advance(days=10)
    second = money.claim_upgrade(agent["id"], paid_upgrade(engine, agent["id"], "premium"), PRICES)
    assert second["tier_expires_at"] == first["tier_expires_at"] + timedelta(days=30)


def test_a_higher_tier_starts_now_and_keeps_the_lower_tiers_unused_value(engine, agent, money, clock):
    money.claim_upgrade(agent["id"], paid_upgrade(engine, agent["id"], "premium"), PRICES)
    clock.advance(days=20)  # 10 premium days left, worth 10 * 20_000 / 30 sats = 2 institutional days
    result = money.claim_upgrade(agent["id"], paid_upgrade(engine, agent["id"], "institutional"), PRICES)
    assert result["tier"] == "institutional" and result["previous_tier"] == "premium"
    assert result["tier_expires_at"] == clock() + timedelta(days=32)


def test_a_lower_tier_paid_while_a_higher_one_runs_is_credited_to_the_balance(engine, agent, money, clock):
    low = paid_upgrade(engine, agent["id"], "premium")  # made before the institutional one was bought
    money.claim_upgrade(agent["id"], paid_upgrade(engine, agent["id"], "institutional"), PRICES)
    result = money.claim_upgrade(agent["id"], low, PRICES)
    assert result["tier"] == "institutional" and result["credited_to_balance_sats"] == 20_000
    assert money.balance(agent["id"]) == 20_000 and check_consistency(engine) == []


def test_invoices_that_are_not_this_agents_upgrade_are_refused(engine, agent, money):
    other, _ = Agents(engine).register("other")
    credit = uuid.uuid4().hex * 2
    Invoices(engine).record(credit, "lnbcrt-test", 500, "credit", expires_at=4_000_000_000, agent_pk=agent["id"])
    for payment_hash in (credit, paid_upgrade(engine, other["id"], "premium"), "ab" * 32):
        with pytest.raises(UpgradeRefused):
            money.claim_upgrade(agent["id"], payment_hash, PRICES)
    assert Agents(engine).get(agent["id"])["tier"] == "free"


def test_concurrent_claims_of_one_upgrade_apply_it_once(engine, agent, money, clock):
    payment_hash = paid_upgrade(engine, agent["id"], "premium")
    start = threading.Barrier(6)

    def claim(_):
        start.wait()
        return money.claim_upgrade(agent["id"], payment_hash, PRICES)

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(claim, range(6)))
    assert sum(r is not None for r in results) == 1
    assert Agents(engine, now=clock).get(agent["id"])["tier_expires_at"] == clock() + timedelta(days=30)
    assert check_consistency(engine) == []


def test_concurrent_rotations_with_one_key_leave_exactly_one_live_key(engine):
    agents = Agents(engine)
    agent, key = agents.register("scout")
    start = threading.Barrier(6)

    def rotate(_):
        start.wait()
        try:
            return agents.rotate_key(agent["id"], key)
        except KeyRevoked:
            return None

    with ThreadPoolExecutor(6) as pool:
        new_keys = [k for k in pool.map(rotate, range(6)) if k is not None]
    assert len(new_keys) == 1
    assert agents.by_key(key) is None and agents.by_key(new_keys[0])["id"] == agent["id"]
    with engine.connect() as conn:
        live = conn.scalar(select(func.count()).select_from(api_keys).where(api_keys.c.revoked_at.is_(None)))
    assert live == 1
