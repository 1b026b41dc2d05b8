"""The catalog routes: full catalog (402 without a key), preview (shares the pulse budget), sampling
status, and the batch route (premium and above, each module metered as if queried alone)."""
import pytest

from charging.prices import MODULE_PRICES, module_price
from intel.registry import modules
from tests.api.agent_helpers import auth, fund, register, set_tier


def balance(client, key) -> int:
    return client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"]


def test_full_catalog_needs_registration(client):
    resp = client.simulate_get("/api/v1/catalog")
    assert resp.status_code == 402 and resp.json["error"]["code"] == "registration_required"
    assert resp.json["error"]["register"]["path"] == "/api/v1/agents/register"
    key, _ = register(client)
    body = client.simulate_get("/api/v1/catalog", headers=auth(key)).json
    registry = modules()
    assert body["module_count"] == len(registry) == sum(c["count"] for c in body["categories"])
    entries = {m["name"]: m for c in body["categories"] for m in c["modules"]}
    assert set(entries) == set(registry)
    for name, entry in entries.items():
        assert entry["price_sats"] == module_price(registry[name]) and entry["free_queries_left_today"] == 1
        assert entry["available"] and entry["formats"] == ["full", "compact", "prompt", "agent"]
        assert ("ticker" in entry["parameters"]["properties"]) == registry[name].takes_ticker


def test_preview_shows_five_per_tier_and_shares_the_pulse_budget(client):
    body = client.simulate_get("/api/v1/catalog/preview").json
    for tier, sats in (("standard", 50), ("proprietary", 250)):
        shown = body["tiers"][tier]["shown"]
        assert len(shown) == 5 and all(m["price_sats"] == sats for m in shown)
        assert body["tiers"][tier]["modules_total"] == sum(
            1 for m in modules().values() if MODULE_PRICES[m.tier] == sats)
    assert body["tiers"]["standard"]["shown"][0]["name"] == "market_intelligence"
    assert body["how_to_register"] and body["pricing"]["free_queries_per_module_per_day"] == 1
    # 1 preview so far; 9 pulses exhaust the shared 10/minute, so both routes then answer 429
    for _ in range(9):
        assert client.simulate_get("/api/v1/pulse").status_code == 200
    for path in ("/api/v1/catalog/preview", "/api/v1/pulse"):
        resp = client.simulate_get(path)
        assert resp.status_code == 429 and int(resp.headers["Retry-After"]) >= 1


def test_sampling_status_counts_only_served_queries(client):
    key, _ = register(client)
    status = client.simulate_get("/api/v1/sampling/status", headers=auth(key)).json
    assert status["tried_count"] == 0 and status["untried_count"] == len(modules())
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 200
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 402  # not counted
    assert client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key)).status_code == 200
    status = client.simulate_get("/api/v1/sampling/status", headers=auth(key)).json
    tried = {t["module"]: t for t in status["tried"]}
    assert set(tried) == {"vix", "yield_curve"} and tried["vix"]["queries_today"] == 1
    assert tried["vix"]["free_queries_left"] == 0 and status["caller"] == "agent"
    assert status["free_queries_left_total"] == len(modules()) - 2
    # another caller (anonymous, by address) has its own count
    assert client.simulate_get("/api/v1/sampling/status").json["tried_count"] == 0


def test_batch_needs_premium_or_is_paid_whole_per_request(client):
    anonymous = client.simulate_post("/api/v1/intelligence/batch", json={"modules": ["vix"]})
    assert anonymous.status_code == 402 and anonymous.json["error"]["item"].startswith("batch:")  # test_batch_paid
    key, agent = register(client)
    resp = client.simulate_post("/api/v1/intelligence/batch", json={"modules": ["vix"]}, headers=auth(key))
    assert resp.status_code == 403 and resp.json["error"]["code"] == "tier_required"


@pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)
def test_batch_meters_each_module_as_if_alone(client, services):
    key, agent = register(client)
    set_tier(services, agent["agent_id"], "premium")
    fund(client, key, 400)
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 200  # free one used
    body = {"modules": ["vix", "yield_curve", {"module": "technical_analysis", "ticker": "msft", "format": "compact"},
                        "market_regime", "market_regime", "yield_curve", "market_regime"], "format": "agent"}
    resp = client.simulate_post("/api/v1/intelligence/batch", json=body, headers=auth(key))
    assert resp.status_code == 200, resp.text
    results = resp.json["results"]
    # balance 400: vix 50, three free queries, market_regime 250, yield_curve 50, then 50 left < 250
    assert [r["status"] for r in results] == [200, 200, 200, 200, 200, 200, 402]
    assert results[0]["result"]["_meta"]["charged_sats"] == 50  # vix: free query already used
    assert results[1]["result"]["_meta"]["paid_with"] == "free_allowance"
    assert results[2]["ticker"] == "MSFT" and results[2]["result"]["module"] == "technical_analysis"
    assert "close" in results[2]["result"]  # compact: flat keys
    assert results[3]["result"]["_meta"]["paid_with"] == "free_allowance" and "deltas" in results[3]["result"]
    assert results[4]["result"]["_meta"]["charged_sats"] == 250 and results[5]["result"]["_meta"]["balance_sats"] == 50
    assert results[6]["error"]["code"] == "payment_required"
    assert resp.json["_meta"] == {**resp.json["_meta"], "charged_sats": 350, "succeeded": 6, "failed": 1}
    assert balance(client, key) == 50
    ids = {r["result"]["_meta"]["request_id"] for r in results if r["status"] == 200}
    assert len(ids) == 6


def test_batch_rejects_unknown_names_before_metering(client, services):
    key, agent = register(client)
    set_tier(services, agent["agent_id"], "institutional")
    resp = client.simulate_post("/api/v1/intelligence/batch", json={"modules": ["vix", "nope", "price_levels"]},
                                headers=auth(key))
    assert resp.status_code == 422
    locs = [d["loc"] for d in resp.json["detail"]]
    assert ["body", "modules", 1, "module"] in locs and ["body", "modules", 2, "ticker"] in locs
    assert client.simulate_get("/api/v1/sampling/status", headers=auth(key)).json["tried_count"] == 0
    too_many = {"modules": ["vix"] * 21}
    assert client.simulate_post("/api/v1/intelligence/batch", json=too_many, headers=auth(key)).status_code == 422
