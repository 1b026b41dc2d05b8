"""Content generation, its chart files and unified context on real parts: the API through falcon.testing, a real
RQ worker in a thread (tests/api/test_synthesis_routes.py), the SQLite ledger, the dev Lightning node and every
non-ticker module computed on sim data and published with the real serving cache."""
from __future__ import annotations

import pytest

from intel.content.types import content_types
from intel.synthesis.published import value_at
from tests.api.agent_helpers import auth, fund, register, set_tier
from tests.api.test_synthesis_routes import balance, entries, worker  # noqa: F401 (the worker fixture)

GENERATE = "/api/v1/content/generate"
UNIFIED = "/api/v1/intelligence/unified"
PREMIUM_TYPE = next(t for t in content_types().values() if t.tier == "premium" and not t.needs_ticker)
INSTITUTIONAL_TYPE = next(t for t in content_types().values() if t.tier == "institutional")
TICKER_TYPE = next((t for t in content_types().values() if t.needs_ticker), None)


def agent_of_tier(client, services, tier: str, sats: int, name: str) -> str:
    key, registered = register(client, name)
    fund(client, key, sats)
    if tier != "free":
        set_tier(services, registered["agent_id"], tier)
    return key


def test_the_types_are_listed_without_a_credential_with_their_prices(client, services):
    resp = client.simulate_get("/api/v1/content/types")
    assert resp.status_code == 200, resp.text
    listed = {t["id"]: t for t in resp.json["types"]}
    assert set(listed) == set(content_types())
    for type_id, entry in listed.items():
        assert entry["price_sats"] == services.prices.content(type_id).price_sats > 0
    pricing = {i["item"]: i for i in client.simulate_get("/api/v1/pricing").json["items"]}
    assert pricing[f"content:{PREMIUM_TYPE.id}"]["reason"] and pricing["ask:quick"]["available"] is True
    assert pricing["ask:quick"]["free_per_day"] == 0 and pricing["unified:standard"]["price_sats"] == 250


def test_tiers_gate_generation_before_anything_is_charged(client, services):
    free = agent_of_tier(client, services, "free", 5000, "free-writer")
    premium = agent_of_tier(client, services, "premium", 5000, "premium-writer")
    refused = client.simulate_post(GENERATE, headers=auth(free), json={"content_type": PREMIUM_TYPE.id})
    assert refused.status_code == 403 and refused.json["error"]["code"] == "tier_required"
    assert refused.json["error"]["required"] == ["premium", "institutional"]
    higher = client.simulate_post(GENERATE, headers=auth(premium), json={"content_type": INSTITUTIONAL_TYPE.id})
    assert higher.status_code == 403 and higher.json["error"]["required"] == ["institutional"]
    assert "institutional" in higher.json["error"]["message"]
    assert client.simulate_post(GENERATE, json={"content_type": PREMIUM_TYPE.id}).status_code == 401
    assert balance(client, free) == balance(client, premium) == 5000


def test_an_unknown_type_or_a_missing_ticker_is_a_422_naming_what_is_valid(client, services):
    premium = agent_of_tier(client, services, "premium", 5000, "premium-writer")
    resp = client.simulate_post(GENERATE, headers=auth(premium), json={"content_type": "horoscope"})
    assert resp.status_code == 422 and resp.json["detail"][0]["loc"] == ["body", "content_type"]
    assert all(type_id in resp.json["detail"][0]["msg"] for type_id in content_types())
    if TICKER_TYPE is not None:
        needs = client.simulate_post(GENERATE, headers=auth(premium), json={"content_type": TICKER_TYPE.id})
        assert needs.status_code == 422 and needs.json["detail"][0]["loc"] == ["body", "ticker"]
    bad_ticker = client.simulate_post(GENERATE, headers=auth(premium),
                                      json={"content_type": PREMIUM_TYPE.id, "ticker": "../etc"})
    assert bad_ticker.status_code == 422 and balance(client, premium) == 5000


@pytest.mark.usefixtures("worker")
def test_a_piece_is_charged_once_cites_published_figures_and_links_real_charts(client, services, computed_payloads):
    premium = agent_of_tier(client, services, "premium", 5000, "premium-writer")
    resp = client.simulate_post(GENERATE, headers=auth(premium), json={"content_type": PREMIUM_TYPE.id,
                                                                       "topic": "rates"})
    assert resp.status_code == 200, resp.text
    price = services.prices.content(PREMIUM_TYPE.id).price_sats
    assert resp.json["_meta"]["charged_sats"] == price and resp.json["simulated"] is True
    assert entries(services, resp.json["_meta"]["request_id"]) == [("query", -price)]
    payloads, _ = computed_payloads
    for fig in resp.json["key_data"]:
        assert value_at(payloads[fig["module"]]["data"], fig["field"]) == fig["value"]
    for chart in resp.json["charts"]:
        png = client.simulate_get(chart["url"])
        assert png.status_code == 200 and png.headers["content-type"] == "image/png"
        assert png.content.startswith(b"\x89PNG\r\n\x1a\n") and "immutable" in png.headers["cache-control"]
    assert balance(client, premium) == 5000 - price


def test_generate_async_answers_202_at_once(client, services, settings):
    institutional = agent_of_tier(client, services, "institutional", 5000, "inst-writer")
    resp = client.simulate_post(f"{GENERATE}/async", headers=auth(institutional),
                                json={"content_type": INSTITUTIONAL_TYPE.id})
    assert resp.status_code == 202 and resp.headers["Location"] == resp.json["poll"]
    assert resp.json["_meta"]["charged_sats"] == services.prices.content(INSTITUTIONAL_TYPE.id).price_sats


@pytest.mark.parametrize("name", ["../ledger.sqlite", "..%2f..%2fledger.sqlite", "%2e%2e%2fsecret.png",
                                  "/etc/passwd", "x.PNG", "nothing-here.png", "..", "a b.png"])
def test_chart_names_that_are_unknown_or_reach_outside_are_404(client, name):
    resp = client.simulate_get(f"/charts/newsletter/{name}")
    assert resp.status_code == 404, resp.text


def test_unified_context_is_institutional_and_charged_by_depth(client, services, computed_payloads):
    premium = agent_of_tier(client, services, "premium", 5000, "premium-reader")
    refused = client.simulate_get(UNIFIED, headers=auth(premium))
    assert refused.status_code == 403 and refused.json["error"]["required"] == ["institutional"]
    key = agent_of_tier(client, services, "institutional", 5000, "inst-reader")
    resp = client.simulate_get(UNIFIED, headers=auth(key), params={"topic": "inflation", "depth": "deep",
                                                                   "include_prompt": "true"})
    assert resp.status_code == 200, resp.text
    meta = resp.json["_meta"]
    assert (meta["price_sats"], meta["charged_sats"], meta["simulated"]) == (500, 500, True)
    assert entries(services, meta["request_id"]) == [("query", -500)] and balance(client, key) == 4500
    assert client.simulate_get(UNIFIED, headers=auth(key), params={"depth": "shallow"}).status_code == 422


def test_unified_context_before_the_first_publish_is_a_503_charging_nothing(unpublished_client, services):
    key, registered = register(unpublished_client, "inst-early")
    fund(unpublished_client, key, 1000)
    set_tier(services, registered["agent_id"], "institutional")
    resp = unpublished_client.simulate_get(UNIFIED, headers=auth(key))
    assert resp.status_code == 503 and balance(unpublished_client, key) == 1000
