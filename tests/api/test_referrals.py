"""Referrals over HTTP: the code and how to share it, 10% of the referred agents' per-request sats as
credits (taken back when their request fails), stats, and spending the credits."""
from __future__ import annotations

import pytest
import redis

from tests.api.account_helpers import paid_with
from tests.api.agent_helpers import auth, fund, register
from tests.api.usage_faults import ledger_moves, usage_stream_broken
from warehouse.ledger import check_consistency

pytestmark = pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)


def referred(client, code: str, name: str) -> str:
    resp = client.simulate_post("/api/v1/agents/register", json={"name": name, "referral_code": code})
    assert resp.status_code == 200, resp.text
    return resp.json["api_key"]


def stats(client, key: str) -> dict:
    return client.simulate_get("/api/v1/referrals/stats", headers=auth(key)).json


def test_the_code_route_shows_the_code_and_how_to_share_it(client):
    key, agent = register(client)
    body = client.simulate_get("/api/v1/referrals/code", headers=auth(key)).json
    assert body["referral_code"] == agent["referral_code"] and body["reward_percent"] == 10
    assert body["share"]["register"] == {"method": "POST", "path": "/api/v1/agents/register",
                                         "body": {"name": "their-agent", "referral_code": agent["referral_code"]}}
    for path in ("code", "stats", "credits"):
        assert client.simulate_get(f"/api/v1/referrals/{path}").status_code == 401


def test_the_referrer_earns_ten_percent_of_each_paid_request(client, services):
    key, agent = register(client, "referrer")
    first, second = (referred(client, agent["referral_code"], n) for n in ("n1", "n2"))
    fund(client, first, 300)
    fund(client, second, 100)
    for _ in range(2):  # free, then 250
        client.simulate_get("/api/v1/intelligence/market_regime", headers=auth(first))
    for _ in range(3):  # free, then 50 and 50
        client.simulate_get("/api/v1/intelligence/vix", headers=auth(second))
    assert stats(client, key) == {**stats(client, key), "agents_referred": 2, "sats_earned": 35,
                                  "credits_available_sats": 35, "referred_spend_sats": 350}
    credits = client.simulate_get("/api/v1/referrals/credits", headers=auth(key)).json
    assert credits == {"credits_available_sats": 35, "sats_earned": 35}
    assert stats(client, first)["agents_referred"] == 0  # the referred agents paid full price, earned nothing
    assert client.simulate_get("/api/v1/agents/balance", headers=auth(first)).json["balance_sats"] == 50
    assert check_consistency(services.engine) == []


def test_referral_credits_pay_for_the_referrers_queries(client, services):
    key, agent = register(client, "referrer")
    newcomer = referred(client, agent["referral_code"], "n1")
    fund(client, newcomer, 500)
    for _ in range(3):
        client.simulate_get("/api/v1/intelligence/market_regime", headers=auth(newcomer))
    client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))  # the referrer's free query
    assert paid_with(client, key) == ("referral", 0, 50)
    after = stats(client, key)
    assert (after["sats_earned"], after["credits_available_sats"]) == (50, 0)
    assert check_consistency(services.engine) == []


def test_a_failed_request_of_the_referred_agent_takes_the_reward_back(client, services, settings):
    key, agent = register(client, "referrer")
    newcomer = referred(client, agent["referral_code"], "n1")
    fund(client, newcomer, 100)
    client.simulate_get("/api/v1/intelligence/vix", headers=auth(newcomer))  # free

    with usage_stream_broken(redis.Redis.from_url(settings.effective_redis_url)):  # fails after the debit
        assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(newcomer)).status_code == 500
    assert stats(client, key)["credits_available_sats"] == 0 and stats(client, key)["referred_spend_sats"] == 0
    moves = ledger_moves(services.engine, ("query", "referral", "refund", "referral_reversal"))
    ref = moves[0][2]  # the debit rewarded the referrer; its refund took the reward back
    assert moves == [("query", -50, ref), ("referral", 5, ref), ("refund", 50, ref), ("referral_reversal", -5, ref)]
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(newcomer)).status_code == 200
    assert stats(client, key)["credits_available_sats"] == 5
    assert check_consistency(services.engine) == []
