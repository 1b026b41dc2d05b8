"""Agents over HTTP: registration with a referral code, profile and balance, key rotation that takes effect
everywhere at once, tier upgrades paid over Lightning (once per proof) that end on time, integer amounts,
and keys that never reach the logs."""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

import falcon.testing
import pytest
from sqlalchemy.exc import DBAPIError

from api.services import Services
from tests.api.account_helpers import ledger_clock, pay, upgrade, with_clock
from tests.api.agent_helpers import auth, fund, register
from warehouse.ledger import check_consistency

pytestmark = pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def clock():
    return ledger_clock()


@pytest.fixture
def services(settings, clock):
    return with_clock(Services.build(settings), clock)


def test_register_with_an_existing_referral_code_only(client, services):
    referrer_key, referrer = register(client, "referrer")
    resp = client.simulate_post("/api/v1/agents/register",
                                json={"name": "newcomer", "referral_code": referrer["referral_code"]})
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-store"
    referred_by = services.agents.by_key(resp.json["api_key"])["referred_by"]
    assert referred_by == services.agents.by_key(referrer_key)["id"]
    unknown = client.simulate_post("/api/v1/agents/register", json={"name": "x", "referral_code": "ref_nope"})
    assert unknown.status_code == 422 and unknown.json["detail"][0]["loc"] == ["body", "referral_code"]


def test_me_and_balance_show_tier_pools_and_usage(client):
    key, _ = register(client)
    fund(client, key, 500)
    client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))  # free
    client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))  # 50 from the balance
    me = client.simulate_get("/api/v1/agents/me", headers=auth(key)).json
    assert (me["tier"], me["tier_expires_at"], me["balance_sats"]) == ("free", None, 450)
    assert [p["pool"] for p in me["pools"]] == ["subscription", "burst", "commitment", "referral", "balance"]
    assert me["pools"][-1] == {"pool": "balance", "remaining_sats": 450, "usable_until": None, "usable": True}
    assert me["usage"]["sats_spent_by_pool"] == {"balance": 50} and me["usage"]["sats_topped_up"] == 500
    balance = client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json
    assert balance["balance_sats"] == 450
    assert balance["credits_sats"] == {"subscription": 0, "burst": 0, "commitment": 0, "referral": 0}


def test_a_rotated_key_fails_at_once_and_the_new_one_works(client, services):
    old, body = register(client)
    rotated = client.simulate_post("/api/v1/agents/rotate-key", headers=auth(old))
    assert rotated.status_code == 200 and rotated.headers["Cache-Control"] == "no-store"
    new = rotated.json["api_key"]
    assert new != old and rotated.json["agent_id"] == body["agent_id"]
    refused = client.simulate_get("/api/v1/agents/me", headers=auth(old))
    assert refused.status_code == 401 and refused.json["error"]["code"] == "invalid_api_key"
    assert client.simulate_post("/api/v1/agents/rotate-key", headers=auth(old)).status_code == 401
    assert client.simulate_get("/api/v1/agents/me", headers={"Authorization": f"Bearer {new}"}).json[
        "agent_id"] == body["agent_id"]


def test_rotation_on_one_instance_locks_the_old_key_out_of_another_at_once(client, settings, services):
    """Two API instances on one ledger (as gunicorn workers or replicas are): no cache window between them."""
    from api.app import create_app

    other = falcon.testing.TestClient(create_app(settings, Services.build(settings)))
    old, _ = register(client)
    assert other.simulate_get("/api/v1/agents/me", headers=auth(old)).status_code == 200
    new = client.simulate_post("/api/v1/agents/rotate-key", headers=auth(old)).json["api_key"]
    assert other.simulate_get("/api/v1/agents/me", headers=auth(old)).status_code == 401
    assert other.simulate_get("/api/v1/agents/me", headers=auth(new)).status_code == 200


def test_an_upgrade_paid_over_lightning_applies_once(client, services, settings, clock):
    key, _ = register(client)
    before = clock.now()
    bought = upgrade(client, key, "premium")
    assert bought["invoice"]["amount_sats"] == settings.tier_premium_price_sats
    result = bought["result"]
    assert result["tier"] == "premium" and result["paid_sats"] == settings.tier_premium_price_sats
    ends = datetime.fromisoformat(result["tier_expires_at"])
    assert before + timedelta(days=30) <= ends <= clock.now() + timedelta(days=30)
    replay = client.simulate_post("/api/v1/agents/upgrade", headers=auth(key), json=bought["proof"])
    assert replay.status_code == 409 and replay.json["error"]["code"] == "already_credited"
    me = client.simulate_get("/api/v1/agents/me", headers=auth(key)).json
    assert me["tier"] == "premium" and me["balance_sats"] == 0 and me["usage"]["sats_paid_for_tiers"] == 20_000
    batch = client.simulate_post("/api/v1/intelligence/batch", headers=auth(key), json={"modules": ["vix"]})
    assert batch.status_code == 200
    assert check_consistency(services.engine) == []


def test_the_tier_expires_back_to_free_everywhere(client, clock):
    key, _ = register(client)
    upgrade(client, key, "premium")
    again = upgrade(client, key, "premium")["result"]  # extends: 60 days in all
    clock.advance(timedelta(days=59))
    assert client.simulate_get("/api/v1/agents/me", headers=auth(key)).json["tier"] == "premium"
    clock.advance(timedelta(days=1, seconds=1))
    assert datetime.fromisoformat(again["tier_expires_at"]) < clock.now()
    me = client.simulate_get("/api/v1/agents/me", headers=auth(key)).json
    assert (me["tier"], me["tier_expires_at"]) == ("free", None)
    batch = client.simulate_post("/api/v1/intelligence/batch", headers=auth(key), json={"modules": ["vix"]})
    assert batch.status_code == 403 and batch.json["error"]["tier"] == "free"
    assert client.simulate_get("/api/v1/catalog", headers=auth(key)).json["agent_tier"] == "free"


def test_upgrade_proofs_are_checked(client):
    key, _ = register(client)
    credit = fund(client, key, 100)  # a balance invoice, credited already
    wrong_kind = client.simulate_post("/api/v1/agents/upgrade", headers=auth(key), json={
        "payment_hash": credit["invoice"]["payment_hash"], "preimage": credit["preimage"]})
    assert wrong_kind.status_code == 409
    inv = client.simulate_post("/api/v1/payments/create-invoice", headers=auth(key),
                               json={"purpose": "upgrade", "tier": "institutional"}).json
    unpaid = client.simulate_post("/api/v1/agents/upgrade", headers=auth(key),
                                  json={"payment_hash": inv["payment_hash"], "preimage": "ab" * 32})
    assert unpaid.status_code == 422  # the preimage does not hash to the payment hash
    proof = {"payment_hash": inv["payment_hash"], "preimage": pay(inv)}
    as_topup = client.simulate_post("/api/v1/agents/topup", headers=auth(key), json=proof)
    assert as_topup.status_code == 403  # an upgrade invoice does not become balance
    assert client.simulate_post("/api/v1/agents/upgrade", headers=auth(key), json=proof).json["tier"] == "institutional"
    lower = client.simulate_post("/api/v1/payments/create-invoice", headers=auth(key),
                                 json={"purpose": "upgrade", "tier": "premium"})
    assert lower.status_code == 409 and lower.json["error"]["code"] == "tier_downgrade"


@pytest.mark.parametrize("body", [
    {"amount_sats": 10.5}, {"amount_sats": 10.0}, {"amount_sats": "10"}, {"amount_sats": True},
    {"purpose": "upgrade", "tier": "premium", "amount_sats": 5}, {"purpose": "upgrade"}, {"purpose": "credit"},
])
def test_invoice_amounts_are_integers_and_fit_the_purpose(client, body):
    key, _ = register(client)
    resp = client.simulate_post("/api/v1/payments/create-invoice", headers=auth(key), json=body)
    assert resp.status_code == 422 and resp.json["detail"][0]["loc"][0] == "body"


def test_pricing_lists_tiers_plans_referrals_pool_order_and_limits(client, settings):
    pricing = client.simulate_get("/api/v1/pricing").json
    assert pricing["tiers"]["premium"]["price_sats"] == settings.tier_premium_price_sats
    assert pricing["tiers"]["institutional"]["days"] == settings.tier_institutional_days
    assert {p["name"] for p in pricing["commitment_plans"]} == set(settings.commitment_plans)
    assert all(20 <= p["discount_percent"] <= 40 for p in pricing["commitment_plans"])
    assert {p["name"] for p in pricing["subscription_plans"]} == set(settings.subscription_plans)
    assert pricing["referral_reward_percent"] == 10
    assert "subscription allocation, burst credits, commitment credits, referral credits, balance" in pricing[
        "pool_order"]
    assert pricing["rate_limits_per_key"]["free"] == settings.rate_limit_free


def test_keys_and_preimages_never_reach_the_logs(client, services, caplog):
    caplog.set_level(logging.DEBUG)
    key, _ = register(client)
    paid = fund(client, key, 100)
    new = client.simulate_post("/api/v1/agents/rotate-key", headers=auth(key)).json["api_key"]
    client.simulate_get("/api/v1/agents/me", headers=auth(key))  # a rotated key: 401

    # the usage statistics' table gone from the ledger: /agents/me fails in the database, after the key check
    with services.engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE usage_events RENAME TO usage_events_gone")
    try:
        crashed = client.simulate_get("/api/v1/agents/me", headers=auth(new))
    finally:
        with services.engine.begin() as conn:
            conn.exec_driver_sql("ALTER TABLE usage_events_gone RENAME TO usage_events")
    assert crashed.status_code == 500 and new not in crashed.text
    crash = next(r for r in caplog.records if r.getMessage().startswith("unhandled error")).exc_info[1]
    assert isinstance(crash, DBAPIError) and "usage_events" in str(crash)  # the database's own error
    for secret in (key, new, paid["preimage"]):
        assert secret not in caplog.text
    assert "unhandled error" in caplog.text  # the error path did log, without the key
