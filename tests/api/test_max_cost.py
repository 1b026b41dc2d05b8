"""X-Max-Cost-Sats on the real app: a request is never charged more than its caller allows in all. A price past the
maximum is a 402 naming the price, with nothing charged (no debit, no token spent); free queries pass whatever the
maximum; a batch stops charging at it; a header that is not a whole number of sats is a 422."""
from __future__ import annotations

from tests.api.agent_helpers import auth, fund, register, set_tier
from tests.api.test_l402 import get, paid_credential

MAX = "X-Max-Cost-Sats"


def balance(client, key: str) -> int:
    return client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"]


def test_a_price_past_the_maximum_is_refused_with_nothing_charged(client):
    key, _ = register(client)
    fund(client, key, 1000)
    free = client.simulate_get("/api/v1/intelligence/vix", headers={**auth(key), MAX: "0"})
    assert free.status_code == 200 and free.json["_meta"]["paid_with"] == "free_allowance"
    over = client.simulate_get("/api/v1/intelligence/vix", headers={**auth(key), MAX: "49"})
    assert over.status_code == 402, over.text
    error = over.json["error"]
    assert (error["code"], error["price_sats"], error["max_cost_sats"]) == ("max_cost_exceeded", 50, 49)
    assert over.json["_meta"]["charged_sats"] == 0 and balance(client, key) == 1000
    ok = client.simulate_get("/api/v1/intelligence/vix", headers={**auth(key), MAX: "50"})
    assert ok.status_code == 200 and ok.json["_meta"]["charged_sats"] == 50 and balance(client, key) == 950
    bad = client.simulate_get("/api/v1/intelligence/vix", headers={**auth(key), MAX: "ten"})
    assert bad.status_code == 422 and bad.json["detail"][0]["loc"] == ["header", MAX]


def test_a_batch_stops_charging_at_the_maximum(client, services):
    key, agent = register(client)
    set_tier(services, agent["agent_id"], "premium")
    fund(client, key, 1000)
    resp = client.simulate_post("/api/v1/intelligence/batch", headers={**auth(key), MAX: "120"},
                                json={"modules": ["vix", "vix", "vix", "vix"]})
    assert resp.status_code == 200, resp.text
    statuses = [r["status"] for r in resp.json["results"]]
    assert statuses == [200, 200, 200, 402]  # free, 50, 50, then 50 more would pass 120
    assert resp.json["results"][3]["error"]["code"] == "max_cost_exceeded"
    assert resp.json["_meta"]["charged_sats"] == 100 and balance(client, key) == 900


def test_an_l402_token_is_not_spent_past_the_maximum(client):
    credential = paid_credential(client)
    over = client.simulate_get("/api/v1/intelligence/vix", remote_addr="10.9.9.9",
                               headers={"Authorization": credential, MAX: "10"})
    assert over.status_code == 402 and over.json["error"]["code"] == "max_cost_exceeded"
    assert get(client, "/api/v1/intelligence/vix", credential).status_code == 200  # still unspent
