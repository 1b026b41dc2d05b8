"""Commitment and subscription plans over HTTP, and which pool pays: every pool in the documented order,
shown in `_meta` with what is left, refunds to the pool that paid, and no overspending under concurrency."""
from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import falcon.testing
import pytest
import redis

from api.services import Services
from tests.api.account_helpers import ledger_clock, paid_with, pools, with_clock
from tests.api.agent_helpers import auth, fund, register
from tests.api.usage_faults import ledger_moves, usage_stream_broken
from warehouse.ledger import check_consistency

pytestmark = pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)

# Small plans: each pays for one or two 50-sat queries, so a test can walk through every pool.
COMMITMENTS = {"tiny": {"credits_sats": 100, "discount_percent": 20, "term_days": 90},
               "bulk": {"credits_sats": 1000, "discount_percent": 40, "term_days": 90}}
SUBSCRIPTIONS = {"mini": {"price_sats": 100, "period_days": 30, "allocation_sats": 100, "burst_sats": 50},
                 "maxi": {"price_sats": 400, "period_days": 30, "allocation_sats": 500, "burst_sats": 100}}


@pytest.fixture
def settings(settings):
    return settings.model_copy(update={"commitment_plans": COMMITMENTS, "subscription_plans": SUBSCRIPTIONS})


@pytest.fixture
def clock():
    return ledger_clock()


@pytest.fixture
def services(settings, clock):
    return with_clock(Services.build(settings), clock)


def post(client, path: str, key: str, plan: str):
    return client.simulate_post(path, headers=auth(key), json={"plan": plan})


def test_commitments_list_activate_and_status(client, services, clock):
    key, _ = register(client)
    assert client.simulate_get("/api/v1/commitments/plans").status_code == 401
    listed = {p["name"]: p for p in client.simulate_get("/api/v1/commitments/plans", headers=auth(key)).json["plans"]}
    assert listed["bulk"] == {"name": "bulk", "credits_sats": 1000, "discount_percent": 40, "term_days": 90,
                              "price_sats": 600, "standard_queries": 20, "proprietary_queries": 4}
    short = post(client, "/api/v1/commitments/activate", key, "bulk")
    assert short.status_code == 402 and short.json["error"]["code"] == "insufficient_balance"
    assert short.json["error"]["price_sats"] == 600 and short.json["error"]["balance_sats"] == 0
    unknown = post(client, "/api/v1/commitments/activate", key, "huge")
    assert unknown.status_code == 422 and unknown.json["detail"][0]["loc"] == ["body", "plan"]
    fund(client, key, 600)
    done = post(client, "/api/v1/commitments/activate", key, "bulk")
    assert done.status_code == 200 and (done.json["paid_sats"], done.json["credits_sats"]) == (600, 1000)
    assert datetime.fromisoformat(done.json["usable_until"]) > clock.now() + timedelta(days=89)
    status = client.simulate_get("/api/v1/commitments/status", headers=auth(key)).json
    assert status["active"] and status["credits_remaining_sats"] == 1000 and status["paid_sats"] == 600
    assert check_consistency(services.engine) == []


def test_subscriptions_list_subscribe_renew_and_status(client, clock):
    listed = client.simulate_get("/api/v1/subscriptions/plans")  # no key needed
    assert listed.status_code == 200 and {p["name"] for p in listed.json["plans"]} == {"mini", "maxi"}
    key, _ = register(client)
    fund(client, key, 600)
    first = post(client, "/api/v1/subscriptions/subscribe", key, "mini")
    assert first.status_code == 200 and first.json["renewed"] is False
    assert first.json["allocation"]["remaining_sats"] == 100 and first.json["burst_credits"]["remaining_sats"] == 50
    renewed = post(client, "/api/v1/subscriptions/subscribe", key, "mini").json
    assert renewed["renewed"] is True
    extension = datetime.fromisoformat(renewed["ends_at"]) - datetime.fromisoformat(first.json["ends_at"])
    assert extension == timedelta(days=30)
    change = post(client, "/api/v1/subscriptions/subscribe", key, "maxi")
    assert change.status_code == 409 and change.json["error"]["code"] == "plan_change_not_allowed"
    status = client.simulate_get("/api/v1/subscriptions/status", headers=auth(key)).json
    assert status["active"] and status["plan"] == "mini" and status["periods_paid"] == 2
    assert status["allocation"]["remaining_sats"] == 200 and status["burst_credits"]["usable"] is True
    clock.advance(timedelta(days=61))
    lapsed = client.simulate_get("/api/v1/subscriptions/status", headers=auth(key)).json
    assert lapsed["active"] is False and lapsed["allocation"]["remaining_sats"] == 0
    assert lapsed["burst_credits"] == {**lapsed["burst_credits"], "remaining_sats": 100, "usable": False}
    assert post(client, "/api/v1/subscriptions/subscribe", key, "maxi").json["plan"] == "maxi"


def test_every_pool_pays_in_the_documented_order_and_meta_says_which(client, services):
    key, agent = register(client, "payer")
    fund(client, key, 100 + 80 + 100)
    post(client, "/api/v1/subscriptions/subscribe", key, "mini")  # 100: allocation 100, burst 50
    post(client, "/api/v1/commitments/activate", key, "tiny")  # 80: 100 credits
    newcomer = client.simulate_post("/api/v1/agents/register",
                                    json={"name": "newcomer", "referral_code": agent["referral_code"]}).json["api_key"]
    fund(client, newcomer, 500)
    for _ in range(3):  # one free, then 2 x 250 sats: the payer earns 50 referral credits
        client.simulate_get("/api/v1/intelligence/market_regime", headers=auth(newcomer))
    assert pools(client, key) == {"subscription": 100, "burst": 50, "commitment": 100, "referral": 50, "balance": 100}

    seen = [paid_with(client, key) for _ in range(9)]
    assert seen == [("free_allowance", None, 0),
                    ("subscription", 50, 50), ("subscription", 0, 50),
                    ("burst", 0, 50),
                    ("commitment", 50, 50), ("commitment", 0, 50),
                    ("referral", 0, 50),
                    ("balance", 50, 50), ("balance", 0, 50)]
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 402
    assert set(pools(client, key).values()) == {0}
    assert check_consistency(services.engine) == []


def test_a_failed_request_is_refunded_to_the_pool_that_paid(client, services, settings):
    key, _ = register(client)
    fund(client, key, 100)
    post(client, "/api/v1/subscriptions/subscribe", key, "mini")
    client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key))  # the free one
    before = pools(client, key)

    with usage_stream_broken(redis.Redis.from_url(settings.effective_redis_url)):  # fails after the debit
        assert client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key)).status_code == 500
    assert pools(client, key) == before == {**before, "subscription": 100}
    (debit, ref), refund = [((kind, sats), ref) for kind, sats, ref in ledger_moves(services.engine)]
    assert debit == ("query", -50) and refund == (("refund", 50), ref)  # debited, then refunded exactly
    assert paid_with(client, key, "yield_curve") == ("subscription", 50, 50)
    assert check_consistency(services.engine) == []


def test_concurrent_queries_across_pools_never_overspend(client, app, services):
    key, _ = register(client)
    fund(client, key, 100 + 80 + 150)
    post(client, "/api/v1/subscriptions/subscribe", key, "mini")  # 150 in allocation and burst
    post(client, "/api/v1/commitments/activate", key, "tiny")  # 100 credits; balance 150 left

    async def burst():
        async with falcon.testing.ASGIConductor(app) as conductor:
            return await asyncio.gather(*[
                conductor.simulate_get("/api/v1/intelligence/credit_spreads", headers=auth(key)) for _ in range(16)])

    responses = asyncio.run(burst())
    ok = [r.json["_meta"]["paid_with"] for r in responses if r.status_code == 200]
    assert sorted(ok) == sorted(["free_allowance"] + ["subscription"] * 2 + ["burst"] + ["commitment"] * 2
                                + ["balance"] * 3)
    assert sum(r.status_code == 402 for r in responses) == 16 - 9
    assert set(pools(client, key).values()) == {0}
    assert check_consistency(services.engine) == []
