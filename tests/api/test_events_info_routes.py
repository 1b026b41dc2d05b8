"""GET /api/v1/events/scanner and GET /api/v1/webhooks/events on the real app: the scanner's status as a real scan
of the sim payloads published it (the asset's own `status`), cooldowns counted at the market clock's now, and the
event type registry, keyed or not, never charged."""
from __future__ import annotations

from datetime import timedelta

import orjson
import redis

from assets.scanner import status
from intel.events.scanner import RULES, scan
from intel.events.types import EVENT_TYPES
from tests.api.agent_helpers import auth, register, set_tier
from warehouse import keys


def test_the_scanner_route_before_any_scan(client):
    body = client.simulate_get("/api/v1/events/scanner").json
    assert body["status"] == "not_yet_run" and body["scans"] == 0 and body["last_scan_at"] is None
    assert body["events_emitted"] == dict.fromkeys(RULES, 0) and body["events_emitted_total"] == 0
    assert all(c["left_s"] == 0 and c["last_fired_at"] is None for c in body["cooldowns"].values())
    assert body["data_source"] == "sim" and body["simulated"] is True


def test_the_scanner_route_serves_the_published_status_with_cooldowns_at_the_market_clock(client, services,
                                                                                         computed_payloads):
    payloads, _ = computed_payloads
    now = services.clock.now()
    events, state, detected = scan(payloads, {}, now - timedelta(hours=1), "sim", True)
    state["last_fired"]["market.vix_spike"] = (now - timedelta(hours=1)).isoformat()  # as if VIX had spiked
    redis.Redis.from_url(services.settings.effective_redis_url).set(
        keys.SCANNER_STATUS, orjson.dumps(status(state, detected, 0.01, "sim", True)))

    body = client.simulate_get("/api/v1/events/scanner").json
    assert body["status"] == "scanning" and body["scans"] == 1
    assert body["last_scan_at"] == (now - timedelta(hours=1)).isoformat()
    assert body["detected"]["regime"]["state"] == payloads["market_regime"]["data"]["state"]
    assert body["detected"]["vix"]["level"] == payloads["vix"]["data"]["level"]
    high_yield = payloads["credit_spreads"]["data"]["high_yield"]
    assert body["detected"]["credit"]["high_yield_oas_pct"] == high_yield["oas_pct"]
    assert body["events_emitted_total"] == len(events)
    vix = body["cooldowns"]["market.vix_spike"]
    # 23 hours left, less the few market-clock seconds the request took
    assert vix["cooldown_s"] == 86400 and 23 * 3600 - 60 <= vix["left_s"] <= 23 * 3600
    assert body["cooldowns"]["market.regime_change"]["left_s"] == 0


def test_the_event_types_route_lists_the_registry_with_or_without_a_key(client, services):
    anonymous = client.simulate_get("/api/v1/webhooks/events")
    assert anonymous.status_code == 200
    listed = {t["name"]: t for t in anonymous.json["event_types"]}
    assert set(listed) == set(EVENT_TYPES) and anonymous.json["count"] == len(EVENT_TYPES)
    vix = listed["market.vix_spike"]
    assert vix == {"name": "market.vix_spike", "description": EVENT_TYPES["market.vix_spike"].description,
                   "min_tier": "free", "urgency": "high", "cooldown_s": 86400,
                   "rule": EVENT_TYPES["market.vix_spike"].rule, "owner_only": False}
    assert listed["alert.triggered"]["owner_only"] is True and anonymous.json["your_tier"] is None

    key, agent = register(client, "event-reader")
    keyed = client.simulate_get("/api/v1/webhooks/events", headers=auth(key)).json
    receivable = {t["name"] for t in keyed["event_types"] if t["receivable"]}
    assert keyed["your_tier"] == "free" and "market.correlation_break" not in receivable
    assert {"market.regime_change", "market.vix_spike", "alert.triggered"} <= receivable
    set_tier(services, agent["agent_id"], "institutional")
    keyed = client.simulate_get("/api/v1/webhooks/events", headers=auth(key)).json
    assert all(t["receivable"] for t in keyed["event_types"])
    balance = client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json
    assert balance["balance_sats"] == 0  # nothing charged


def test_both_routes_are_documented(client):
    paths = client.simulate_get("/openapi.json").json["paths"]
    for path, term in (("/api/v1/events/scanner", "cooldowns"), ("/api/v1/webhooks/events", "min_tier")):
        assert paths[path]["get"]["summary"] and term in paths[path]["get"]["description"], path
