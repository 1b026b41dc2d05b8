"""GET /api/v1/trading/regime on real collaborators: the regime view computed by intel/regime_history on sim
data, published with the real serving cache, served to an institutional agent and charged by the price list
(one free query a day, then the proprietary price from the balance); lower tiers get 403, nothing charged."""
from __future__ import annotations

import time
from datetime import date, timedelta

import pytest
import redis

from intel.frames import Frames
from intel.providers.sim import SimProvider
from intel.regime import REGIME_INPUTS
from intel.regime_history import CALENDAR_SERIES, TILT_SERIES, daily_regimes, regime_view, trading_days
from tests.api.agent_helpers import auth, fund, register, set_tier
from warehouse.cache import ServingCache

AS_OF = date(2026, 11, 20)
PATH = "/api/v1/trading/regime"


@pytest.fixture(scope="module")
def regime_payload():
    ids = sorted(set(REGIME_INPUTS) | set(CALENDAR_SERIES) | set(TILT_SERIES))
    long = SimProvider(seed=7).observations(ids, AS_OF - timedelta(days=4 * 365), AS_OF)
    frames = Frames.from_long(long, AS_OF, "sim")
    days = trading_days(frames)[-500:]
    return regime_view(frames, daily_regimes(frames, days), AS_OF)


@pytest.fixture
def published(client, settings, regime_payload):
    ServingCache(redis.Redis.from_url(settings.effective_redis_url)).publish_products(
        [("regime", regime_payload, "sim")], True, time.time())
    return client


def institutional(client, services, name="quant") -> str:
    key, body = register(client, name)
    set_tier(services, body["agent_id"], "institutional")
    return key


def test_institutional_agent_gets_the_view_then_pays(published, services, settings):
    key = institutional(published, services)
    first = published.simulate_get(PATH, headers=auth(key))
    assert first.status_code == 200, first.text
    body = first.json
    assert body["current"]["state"] in ("risk_on", "neutral", "risk_off", "crisis")
    assert abs(sum(body["current"]["probabilities"].values()) - 1) < 0.01
    transitions = body["transitions"]
    assert transitions["step_trading_days"] == 21 and sum(transitions["n"].values()) == transitions["n_total"] > 0
    assert set(body["tilts"]) >= {"equities", "treasuries", "credit", "commodities", "gold", "cash", "bitcoin"}
    assert body["tilts"]["gold"]["tilt"] is None and body["tilts"]["gold"]["reason"]  # no gold series: said so
    meta = body["_meta"]
    assert meta["simulated"] is True and meta["charged_sats"] == 0 and meta["paid_with"] == "free_allowance"
    price = services.prices.product("regime").price_sats
    assert meta["price_sats"] == price == 250

    unpaid = published.simulate_get(PATH, headers=auth(key))  # the free query is spent, the balance is empty
    assert unpaid.status_code == 402 and unpaid.json["error"]["item"] == "product:regime"
    fund(published, key, 1000)
    paid = published.simulate_get(PATH, headers=auth(key))
    assert paid.status_code == 200 and paid.json["_meta"]["charged_sats"] == price
    assert paid.json["_meta"]["balance_sats"] == 1000 - price


def test_lower_tiers_and_anonymous_are_refused(published):
    key, _ = register(published, "retail")
    refused = published.simulate_get(PATH, headers=auth(key))
    assert refused.status_code == 403 and refused.json["error"]["code"] == "tier_required"
    assert refused.json["error"]["required"] == ["institutional"]
    assert published.simulate_get(PATH).status_code == 401


def test_before_the_first_publish_it_is_503_and_free(unpublished_client, services):
    key = institutional(unpublished_client, services)
    resp = unpublished_client.simulate_get(PATH, headers=auth(key))
    assert resp.status_code == 503 and resp.json["error"]["code"] == "data_not_ready"
    assert "Retry-After" in resp.headers
    again = unpublished_client.simulate_get(PATH, headers=auth(key))  # the free query was not used up
    assert again.status_code == 503
