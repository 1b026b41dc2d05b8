"""The interface's loose ends, as an agent meets them: fixed sub-paths that are routes and not modules,
registration that accepts what agent frameworks send, invoices an L402 payer can verify, pricing that lists
both ways to pay, and shared clients closed at shutdown."""
from __future__ import annotations

import asyncio

import falcon.testing
import pytest
import redis

from tests.api.agent_helpers import auth, register

# each answers as its own route (a free key: ask 402, unified 403 for its tier; consensus: see
# tests/api/test_consensus_route.py)
FIXED = {"unified": ("GET", 403, "tier_required"), "ask": ("POST", 402, "payment_required"),
         "ask/async": ("POST", 402, "payment_required")}
VALID_BODY = {"question": "What does the curve say?", "depth": "quick"}


@pytest.fixture
def settings(settings):
    return settings.model_copy(update={"rate_limit_free": "3/minute"})


@pytest.mark.parametrize("path", sorted(FIXED))
def test_fixed_sub_paths_are_routes_not_modules(client, path):
    key, _ = register(client)
    (method, status, code), url = FIXED[path], f"/api/v1/intelligence/{path}"
    body = {"json": VALID_BODY} if method == "POST" else {}
    for _ in range(5):  # above the per-key budget of 3: these routes never spend it
        resp = client.simulate_request(method, url, headers=auth(key), **body)
        assert resp.status_code == status and resp.json["error"]["code"] == code, resp.text
        assert "did_you_mean" not in resp.json["error"] and "unknown_module" not in resp.text
    wrong = client.simulate_request("PUT", url, headers=auth(key))
    assert wrong.status_code == 405 and method in wrong.headers["Allow"] and "unknown_module" not in wrong.text
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 200  # budget untouched


@pytest.mark.parametrize(("path", "params", "loc"), [
    ("consensus", {"hours": "0"}, ["query", "hours"]),
    ("consensus", {"hours": "169"}, ["query", "hours"]),
    ("parallels", {"top_n": "16"}, ["query", "top_n"]),
    ("track_record", {"status": "closed"}, ["query", "status"]),
    ("track_record", {"min_confidence": "1.5"}, ["query", "min_confidence"]),
    ("track_record", {"days_back": "366"}, ["query", "days_back"]),
    ("unified", {"depth": "shallow"}, ["query", "depth"]),
])
def test_fixed_sub_paths_validate_their_parameters_first(client, path, params, loc):
    resp = client.simulate_get(f"/api/v1/intelligence/{path}", params=params)
    assert resp.status_code == 422 and resp.json["detail"][0]["loc"] == loc


def test_ask_validates_its_body(client):
    for body, field in (({"question": ""}, "question"), ({"question": "x", "depth": "deeper"}, "depth"),
                        ({"question": "x" * 2001}, "question")):
        resp = client.simulate_post("/api/v1/intelligence/ask", json=body)
        assert resp.status_code == 422 and resp.json["detail"][0]["loc"] == ["body", field]


def test_pulse_answers_whatever_credential_comes_with_it(client):
    key, _ = register(client)
    for headers in ({"Authorization": "L402 x:y"}, {"X-API-Key": "nonsense"}, {"Authorization": "Digest abc"},
                    {"Authorization": f"Bearer {key}"}):
        assert client.simulate_get("/api/v1/pulse", headers=headers).status_code == 200
    # a route that needs a key still refuses a wrong one
    assert client.simulate_get("/api/v1/agents/me", headers={"X-API-Key": "nonsense"}).status_code == 401


def test_register_accepts_and_names_unknown_fields(client):
    resp = client.simulate_post("/api/v1/agents/register",
                                json={"name": "x", "description": "a research agent", "version": 3})
    assert resp.status_code == 200 and resp.json["api_key"]
    assert resp.json["ignored_fields"] == ["description", "version"]
    assert "ignored_fields" not in client.simulate_post("/api/v1/agents/register", json={"name": "y"}).json
    for body, field in (({"name": 7}, "name"), ({"name": "x", "referral_code": ["a"]}, "referral_code"), ({}, "name")):
        bad = client.simulate_post("/api/v1/agents/register", json=body)
        assert bad.status_code == 422 and bad.json["detail"][0]["loc"] == ["body", field]


def test_an_l402_payer_can_verify_its_invoice_without_a_key(client):
    client.simulate_get("/api/v1/intelligence/vix", remote_addr="10.4.4.4")
    refused = client.simulate_get("/api/v1/intelligence/vix", remote_addr="10.4.4.4").json["error"]
    for invoice_hash in (refused["l402"]["payment_hash"], refused["invoice"]["payment_hash"]):
        verify = client.simulate_get(f"/api/v1/payments/verify/{invoice_hash}",
                                     headers={"Authorization": "L402 whatever:ab"})
        assert verify.status_code == 200 and verify.json["settled"] is False


def test_an_agents_invoice_is_verified_only_with_its_key(client):
    key, _ = register(client)
    other, _ = register(client, "other")
    invoice = client.simulate_post("/api/v1/payments/create-invoice", json={"amount_sats": 10}, headers=auth(key)).json
    path = f"/api/v1/payments/verify/{invoice['payment_hash']}"
    assert client.simulate_get(path, headers=auth(key)).status_code == 200
    assert client.simulate_get(path).status_code == 404
    assert client.simulate_get(path, headers=auth(other)).status_code == 404


def test_pricing_lists_both_ways_to_pay_and_every_priced_item(client, services):
    pricing = client.simulate_get("/api/v1/pricing").json
    methods = {m["method"]: m for m in pricing["payment"]["methods"]}
    assert set(methods) == {"prepaid balance", "L402 per request"}
    assert methods["L402 per request"]["registration"] == "not needed"
    items = {i["item"]: i for i in pricing["items"]}
    assert {k: items[f"ask:{k}"]["price_sats"] for k in ("quick", "standard", "deep")} == \
        {"quick": 200, "standard": 500, "deep": 1000}
    assert items["catalog"]["price_sats"] == services.settings.l402_catalog_price_sats
    assert items["catalog"]["free_with_key"] is True
    assert pricing["per_query"] == {"standard": 50, "proprietary": 250}
    (day_pass,) = pricing["passes"]  # priced in USD, its sats set at the BTC/USD of the 402
    assert day_pass["item"] == "pass:daytrade" and day_pass["hours"] == 24
    assert day_pass["usd_price"] == services.settings.daytrade_pass_usd and day_pass["l402"] is True


def test_shutdown_closes_the_redis_pool_and_the_sql_engine(app, services, settings):
    from sqlalchemy import event

    closed = []
    event.listen(services.engine.pool, "close", lambda *args: closed.append(1))
    server = redis.Redis.from_url(settings.effective_redis_url)

    def named(name: str) -> int:
        return sum(1 for c in server.client_list() if c["name"] == name)

    async def run() -> tuple[int, int]:
        async with falcon.testing.ASGIConductor(app) as conductor:
            assert (await conductor.simulate_post("/api/v1/agents/register", json={"name": "x"})).status_code == 200
            # metrics reach Redis only when flushed: a reader flushes them first, so both clients are connected
            assert (await conductor.simulate_get("/api/v1/sla")).status_code == 200
            open_during = named("mi-api") + named("mi-api-metrics")
        return open_during, named("mi-api") + named("mi-api-metrics")

    during, after = asyncio.run(run())
    assert during >= 1 and after == 0  # every Redis connection of the app was closed at shutdown
    assert closed  # the SQL engine's pooled connections were closed, not left to the garbage collector
