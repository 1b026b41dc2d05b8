"""GET /api/v1/trading/signals on real collaborators: the product computed by intel/signals on sim history,
published with the real serving cache, served to an institutional agent filtered by strategy and minimum edge
and charged by the price list (one free query a day, then its price from the balance); 422 for an unknown
strategy or a min_edge outside 0.01-0.5, 403 below institutional naming the tier, 503 before the publish."""
from __future__ import annotations

import time
from datetime import date, timedelta

import pytest
import redis

from intel.frames import Frames
from intel.providers.sim import SimProvider
from intel.signals.product import input_series, trading_signals
from intel.signals.strategies import strategies
from tests.api.agent_helpers import auth, fund, register, set_tier
from warehouse.cache import ServingCache

AS_OF = date(2026, 11, 20)
PATH = "/api/v1/trading/signals"


@pytest.fixture(scope="module")
def signals_payload():
    long = SimProvider(seed=7).observations(list(input_series()), AS_OF - timedelta(days=12 * 365), AS_OF)
    return trading_signals(Frames.from_long(long, AS_OF, "sim"), simulated=True)


@pytest.fixture
def published(client, settings, signals_payload):
    ServingCache(redis.Redis.from_url(settings.effective_redis_url)).publish_products(
        [("trading_signals", signals_payload, "sim")], True, time.time())
    return client


def institutional(client, services, name="quant") -> str:
    key, body = register(client, name)
    set_tier(services, body["agent_id"], "institutional")
    return key


def test_every_signal_then_filters_then_pays(published, services, signals_payload):
    key = institutional(published, services)
    first = published.simulate_get(PATH, headers=auth(key))
    assert first.status_code == 200, first.text
    body = first.json
    assert len(body["signals"]) == len(signals_payload["signals"]) == sum(
        len(s.instruments) for s in strategies().values())
    assert body["filters"] == {"strategy": "all", "min_edge": None, "matched": len(body["signals"]),
                               "of": len(body["signals"])}
    for signal in body["signals"]:
        assert signal["direction"] in ("long", "short", "flat") and 0 <= signal["confidence"] <= 1
        edge = signal["edge_estimate"]
        assert {"edge", "n", "hit_rate", "t_stat", "mean_fired", "mean_unconditional"} <= set(edge)
        assert edge["side"] == signal["direction"] and signal["as_of"] == AS_OF.isoformat()
        assert signal["risk"]["max_holding_trading_days"] == signal["horizon_trading_days"]
        assert signal["rationale"]["modules"]
    assert body["simulated"] is True and "simulated" in body["methodology"]["history"]
    assert "gold" in body["unavailable"]  # no gold series held: said so, never invented
    meta = body["_meta"]
    assert meta["simulated"] is True and meta["paid_with"] == "free_allowance" and meta["charged_sats"] == 0
    price = services.prices.product("trading_signals").price_sats
    assert meta["price_sats"] == price == 500

    fund(published, key, 2000)
    crypto = published.simulate_get(PATH, params={"strategy": "crypto"}, headers=auth(key))
    assert crypto.status_code == 200 and crypto.json["_meta"]["charged_sats"] == price
    assert [s["instrument"] for s in crypto.json["signals"]] == ["CBBTCUSD"]
    edges = sorted(abs(s["edge_estimate"]["edge"]) for s in signals_payload["signals"]
                   if s["edge_estimate"] and s["edge_estimate"]["edge"] is not None)
    floor = max(0.01, round(edges[len(edges) // 2], 4))
    strict = published.simulate_get(PATH, params={"min_edge": str(floor)}, headers=auth(key))
    kept = strict.json["signals"]
    assert strict.status_code == 200 and all(abs(s["edge_estimate"]["edge"]) >= floor for s in kept)
    assert len(kept) == sum(e >= floor for e in edges) < len(signals_payload["signals"])


@pytest.mark.parametrize("params, loc", [({"strategy": "momentum"}, ["query", "strategy"]),
                                         ({"min_edge": "0.005"}, ["query", "min_edge"]),
                                         ({"min_edge": "0.6"}, ["query", "min_edge"])])
def test_unknown_strategy_or_edge_out_of_range_is_422_and_free(published, services, params, loc):
    key = institutional(published, services)
    resp = published.simulate_get(PATH, params=params, headers=auth(key))
    assert resp.status_code == 422 and resp.json["detail"][0]["loc"] == loc
    assert published.simulate_get(PATH, headers=auth(key)).json["_meta"]["paid_with"] == "free_allowance"


def test_lower_tiers_and_anonymous_are_refused(published, services):
    key, body = register(published, "retail")
    refused = published.simulate_get(PATH, headers=auth(key))
    assert refused.status_code == 403 and refused.json["error"]["code"] == "tier_required"
    assert refused.json["error"]["tier"] == "free" and refused.json["error"]["required"] == ["institutional"]
    set_tier(services, body["agent_id"], "premium")
    assert published.simulate_get(PATH, headers=auth(key)).json["error"]["tier"] == "premium"
    assert published.simulate_get(PATH).status_code == 401


def test_before_the_first_publish_it_is_503(unpublished_client, services):
    key = institutional(unpublished_client, services)
    resp = unpublished_client.simulate_get(PATH, headers=auth(key))
    assert resp.status_code == 503 and resp.json["error"]["code"] == "data_not_ready"
