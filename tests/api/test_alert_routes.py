"""The alert routes on the real app: a key needed; the fields with their current published values; subscribe,
list, delete (own only); 422 for an unknown field or operator, a value of the wrong type or a non-https callback;
the per-tier limit of live alerts (free 5, premium 50)."""
from __future__ import annotations

from intel.events.alert_fields import FIELDS
from tests.api.agent_helpers import auth, register, set_tier

VIX_ABOVE_30 = {"name": "vix stress", "conditions": [{"field": "vix", "operator": ">", "value": 30}]}


def subscribe(client, key, body=VIX_ABOVE_30):
    return client.simulate_post("/api/v1/alerts/subscribe", json=body, headers=auth(key))


def test_every_alert_route_needs_a_key(client):
    for method, path in (("GET", "/api/v1/alerts"), ("GET", "/api/v1/alerts/fields"),
                         ("POST", "/api/v1/alerts/subscribe"), ("DELETE", "/api/v1/alerts/al_x")):
        resp = client.simulate_request(method, path, json=VIX_ABOVE_30 if method == "POST" else None)
        assert resp.status_code == 401, (path, resp.text)


def test_the_fields_carry_their_current_published_values_and_the_operators(client, computed_payloads):
    key, _ = register(client)
    body = client.simulate_get("/api/v1/alerts/fields", headers=auth(key)).json
    fields = {f["name"]: f for f in body["fields"]}
    assert set(fields) == set(FIELDS) and len(fields) >= 15
    payloads, _ = computed_payloads
    assert fields["vix"]["current_value"] == payloads["vix"]["data"]["level"]
    assert fields["vix"]["module"] == "vix" and fields["vix"]["unit"] == "index points"
    assert fields["regime_state"]["type"] == "string" and fields["regime_state"]["operators"] == ["==", "!="]
    assert fields["regime_state"]["current_value"] == payloads["market_regime"]["data"]["state"]
    assert all(f["current_value"] is not None for f in body["fields"])
    assert {"crosses_above", "crosses_below", ">", "<=", "=="} <= {o["operator"] for o in body["operators"]}


def test_subscribe_list_and_delete_only_ones_own(client):
    key, _ = register(client)
    other, _ = register(client, "agent-2")
    body = {**VIX_ABOVE_30, "logic": "OR", "cooldown": 600, "max_triggers": 2, "expires_in_seconds": 86400,
            "callback_url": "https://93.184.216.34/alerts",
            "conditions": [*VIX_ABOVE_30["conditions"], {"field": "regime_state", "operator": "==", "value": "crisis"}]}
    made = subscribe(client, key, body)
    assert made.status_code == 200, made.text
    alert = made.json
    assert alert["alert_id"].startswith("al_") and alert["status"] == "active" and alert["trigger_count"] == 0
    assert {k: alert[k] for k in body} == body
    assert alert.pop("secret").startswith("whsec_") and alert.pop("secret_shown_once") is True
    assert alert.pop("signing")["headers"] == ["webhook-id", "webhook-timestamp", "webhook-signature"]
    listed = client.simulate_get("/api/v1/alerts", headers=auth(key)).json
    assert listed["alerts"] == [alert] and listed["limit"] == 5 and listed["tier"] == "free"
    assert client.simulate_delete(f"/api/v1/alerts/{alert['alert_id']}", headers=auth(other)).status_code == 404
    assert client.simulate_delete(f"/api/v1/alerts/{alert['alert_id']}", headers=auth(key)).json["deleted"] is True
    assert client.simulate_get("/api/v1/alerts", headers=auth(key)).json["alerts"] == []


def test_unknown_fields_and_operators_and_values_of_the_wrong_type_are_422(client):
    key, _ = register(client)
    cases = [({"field": "vixx", "operator": ">", "value": 30}, ["body", "conditions", 0, "field"]),
             ({"field": "vix", "operator": "above", "value": 30}, ["body", "conditions", 0, "operator"]),
             ({"field": "vix", "operator": ">", "value": "thirty"}, ["body", "conditions", 0, "value"]),
             ({"field": "regime_state", "operator": "==", "value": 1}, ["body", "conditions", 0, "value"]),
             ({"field": "regime_state", "operator": "crosses_above", "value": "crisis"},
              ["body", "conditions", 0, "operator"])]
    for condition, loc in cases:
        resp = subscribe(client, key, {"name": "bad", "conditions": [condition]})
        assert resp.status_code == 422, resp.text
        assert resp.json["detail"][0]["loc"] == loc
    for body in ({"name": "x", "conditions": []}, {**VIX_ABOVE_30, "logic": "XOR"}, {**VIX_ABOVE_30, "cooldown": -1},
                 {**VIX_ABOVE_30, "max_triggers": 0}, {**VIX_ABOVE_30, "callback_url": "http://10.0.0.1/hook"},
                 {**VIX_ABOVE_30, "conditions": [{"field": "vix", "operator": ">", "value": [30]}]}):
        assert subscribe(client, key, body).status_code == 422, body
    assert client.simulate_get("/api/v1/alerts", headers=auth(key)).json["alerts"] == []


def test_live_alerts_are_limited_by_tier(client, services):
    key, agent = register(client)
    assert all(subscribe(client, key).status_code == 200 for _ in range(5))
    refused = subscribe(client, key)
    assert refused.status_code == 409 and refused.json["error"]["code"] == "alert_limit_reached"
    assert refused.json["error"]["limit"] == 5
    set_tier(services, agent["agent_id"], "premium")
    assert subscribe(client, key).status_code == 200
    assert client.simulate_get("/api/v1/alerts", headers=auth(key)).json["limit"] == 50
