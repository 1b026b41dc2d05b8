from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import select

from warehouse.ledger import Agents, Money, UnknownReferralCode, Usage
from warehouse.ledger.tables import api_keys


def test_register_returns_agent_and_key_and_stores_only_the_hash(engine):
    agents = Agents(engine)
    agent, key = agents.register("scout")
    assert agent["agent_id"].startswith("agt_") and agent["name"] == "scout"
    assert agent["tier"] == "free" and agent["balance_sats"] == 0 and agent["referred_by"] is None
    assert key.startswith("mi_") and len(key) > 40
    assert agent["created_at"].tzinfo is not None
    with engine.connect() as conn:
        stored = conn.execute(select(api_keys.c.key_hash)).scalars().all()
    assert stored == [hashlib.sha256(key.encode()).hexdigest()]
    assert agents.by_key(key)["id"] == agent["id"]
    assert agents.get(agent["id"])["agent_id"] == agent["agent_id"]


def test_unknown_key_and_unknown_agent_find_nothing(engine):
    Agents(engine).register("scout")
    assert Agents(engine).by_key("mi_not-a-key") is None
    assert Agents(engine).get(999_999) is None


def test_two_agents_get_distinct_ids_keys_and_referral_codes(engine):
    (first, key1), (second, key2) = Agents(engine).register("a"), Agents(engine).register("b")
    assert first["agent_id"] != second["agent_id"] and key1 != key2
    assert first["referral_code"] != second["referral_code"]


def test_referral_code_links_the_new_agent_to_its_referrer(engine):
    agents = Agents(engine)
    referrer, _ = agents.register("referrer")
    referred, _ = agents.register("newcomer", referral_code=referrer["referral_code"])
    assert referred["referred_by"] == referrer["id"]


def test_unknown_referral_code_registers_nothing(engine):
    with pytest.raises(UnknownReferralCode):
        Agents(engine).register("newcomer", referral_code="ref_nope")
    assert Agents(engine).get(1) is None


def test_rotating_the_key_invalidates_the_old_one_immediately(engine):
    agents = Agents(engine)
    agent, old_key = agents.register("scout")
    new_key = agents.rotate_key(agent["id"])
    assert agents.by_key(old_key) is None
    assert agents.by_key(new_key)["id"] == agent["id"]


def test_usage_counts_queries_and_money(engine, agent, fund):
    fund(agent["id"], 1000)
    money, usage = Money(engine), Usage(engine)
    money.debit_for_query(agent["id"], 50, "yield_curve", "req-1")
    usage.record("req-1", "yield_curve", 50, False, agent_pk=agent["id"], client=agent["agent_id"])
    money.debit_for_query(agent["id"], 250, "regime", "req-2")
    usage.record("req-2", "regime", 250, False, agent_pk=agent["id"])
    money.refund(agent["id"], "req-2")
    usage.record("req-3", "yield_curve", 0, True, agent_pk=agent["id"])
    usage.record("req-3", "yield_curve", 0, True, agent_pk=agent["id"])  # a retry counts once
    usage.record("req-anon", "yield_curve", 0, True, client="iphash")

    stats = Agents(engine).usage(agent["id"])
    assert stats["queries_total"] == 3 and stats["queries_paid"] == 2 and stats["queries_free"] == 1
    assert stats["sats_spent"] == 50 and stats["sats_topped_up"] == 1000
    assert stats["sats_spent_by_pool"] == {"balance": 50}
    assert stats["per_module"] == {"regime": 1, "yield_curve": 2}
    assert stats["last_query_at"].tzinfo is not None


def test_usage_of_an_agent_without_queries_is_zero(engine, agent):
    stats = Agents(engine).usage(agent["id"])
    assert stats == {"queries_total": 0, "queries_paid": 0, "queries_free": 0, "sats_spent": 0,
                     "sats_spent_by_pool": {}, "sats_topped_up": 0, "sats_paid_for_tiers": 0,
                     "sats_paid_for_plans": 0, "referral_sats_earned": 0, "per_module": {}, "last_query_at": None}
