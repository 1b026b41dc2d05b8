"""The OpenAPI description's promises, read from the served /openapi.json and checked against real responses:
a sweep of every documented route (anonymous, keyed, with credentials a public route must ignore) and the
scenarios that produce each error status."""
from __future__ import annotations

import re

import bolt11
import falcon.testing

from api.spec import PROMISES
from tests.api.agent_helpers import auth, fund, register
from tests.api.test_failures import set_tier
from tests.payload_checks import every_figure_traced

# interface.md, Authentication 3 (and verify: see VerifyPaymentResource): no credential needed
PUBLIC = {"/", "/health", "/health/dashboard", "/api/v1/pulse", "/api/v1/catalog/preview", "/api/v1/pricing",
          "/api/v1/sla", "/api/v1/subscriptions/plans", "/openapi.json", "/docs",
          "/api/v1/payments/verify/{payment_hash}", "/api/v1/alert-packages",
          "/api/v1/trading/day-trade-ideas/track-record"}
TRACED_PULSE_KEYS = ("regime", "signals", "correlation_alerts", "composite_score")
PAID_PER_REQUEST = re.compile(r"^/api/v1/(intelligence/(?!batch)[a-z0-9_]+|catalog)$")
STRANGERS = ({"X-API-Key": "mi_unknown"}, {"Authorization": "L402 x:y"}, {"Authorization": "Basic dXNlcjpwdw=="})
STREAMS = {"/api/v1/events/stream"}  # never ends: tests/api/test_event_stream.py holds it to its promises
FILL = {"module_name": "vix", "payment_hash": "deadbeef00", "package_id": "volatility_shock", "alert_id": "al_none",
        "request_id": "0123456789abcdef", "filename": "none-0123456789ab.png"}


def test_the_description_states_every_promise(client):
    description = client.simulate_get("/openapi.json").json["info"]["description"]
    for number, promise in enumerate(PROMISES, 1):
        assert f"{number}. {promise}" in description


def sweep(client, services) -> list[tuple[str, str, falcon.testing.Result]]:
    """(method, path template, response) for every documented route and every error scenario."""
    spec = client.simulate_get("/openapi.json").json
    key, _ = register(client, "sweeper")
    out = []

    def call(method: str, template: str, **kwargs):
        out.append((method, template, client.simulate_request(method, template.format(**FILL), **kwargs)))

    for path in [p for p, ops in spec["paths"].items() if "get" in ops and p not in STREAMS]:
        call("GET", path)
        call("GET", path, headers=auth(key))
        for stranger in STRANGERS:
            call("GET", path, headers=stranger, remote_addr="10.20.0.1")
    # 402s: anonymous and keyed over the free allowance, the catalog without a key, plans without balance
    for _ in range(2):
        call("GET", "/api/v1/intelligence/{module_name}", remote_addr="10.20.0.2")
        call("GET", "/api/v1/intelligence/{module_name}", headers=auth(key))
    call("GET", "/api/v1/catalog", remote_addr="10.20.0.3")
    call("POST", "/api/v1/commitments/activate", headers=auth(key), json={"plan": "starter"})
    call("POST", "/api/v1/subscriptions/subscribe", headers=auth(key), json={"plan": "basic"})
    # errors of every other kind
    call("GET", "/api/v1/intelligence/no_such_module")
    call("GET", "/api/v1/no/such/route")
    call("POST", "/api/v1/pulse")
    call("GET", "/api/v1/intelligence/ask")
    call("POST", "/api/v1/intelligence/ask", json={"question": "Is the curve inverted?", "depth": "quick"})
    call("POST", "/api/v1/intelligence/ask", json={"question": ""})
    call("GET", "/api/v1/intelligence/consensus", params={"hours": "999"})
    call("POST", "/api/v1/intelligence/batch", headers=auth(key), json={"modules": ["vix"]})
    call("POST", "/api/v1/agents/register", json={"name": 5})
    call("POST", "/api/v1/agents/topup", headers=auth(key), json={"payment_hash": "ab" * 32, "preimage": "cd" * 32})
    call("GET", "/api/v1/agents/me", headers={"X-API-Key": "mi_unknown"})
    call("GET", "/api/v1/agents/me", headers={"Authorization": "L402 x:y"})
    for _ in range(12):
        call("GET", "/api/v1/pulse", remote_addr="10.20.0.4")
    # a batch with a paid result and a 402 result inside it
    rich, rich_agent = register(client, "batcher")
    set_tier(services, rich_agent["agent_id"], "premium")
    paid = fund(client, rich, 50)
    call("POST", "/api/v1/intelligence/batch", headers=auth(rich), json={"modules": ["vix", "vix", "vix"]})
    call("POST", "/api/v1/agents/topup", headers=auth(rich),  # a replayed proof: 409
         json={"payment_hash": paid["invoice"]["payment_hash"], "preimage": paid["preimage"]})
    return out


def format_l402(challenge: dict) -> str:
    return (f'L402 macaroon="{challenge["macaroon"]}", invoice="{challenge["invoice"]}", version="0", '
            f'token="{challenge["macaroon"]}"')


def payment_promise_holds(body: dict, headers: dict | None, per_request: bool, where) -> None:
    """`headers` None: a batch result's 402, which has no headers of its own."""
    error = body["error"]
    invoice = error["invoice"]
    decoded = bolt11.decode(invoice["payment_request"])
    assert decoded.payment_hash == invoice["payment_hash"], where
    assert decoded.amount_msat == invoice["amount_sats"] * 1000, where
    assert body["_meta"]["charged_sats"] == 0, where
    if per_request:
        assert error["l402"]["amount_sats"] == error["price_sats"], where
        assert error["mpp"]["challenge"]["method"] == "lightning", where
        expected = f'{format_l402(error["l402"])}, Payment id="{error["mpp"]["challenge"]["id"]}"'
        assert headers is None or headers["www-authenticate"].startswith(expected), where


def served_meta_promised(template: str, body: dict, where) -> None:
    if template == "/api/v1/intelligence/{module_name}":
        assert {"request_id", "charged_sats", "data_source", "simulated", "cache", "price_sats", "paid_with",
                "free_queries_left"} <= set(body["_meta"]), where
    if template == "/api/v1/pulse":
        assert {"request_id", "charged_sats", "data_source", "simulated", "cache"} <= set(body["_meta"]), where
    if template == "/api/v1/catalog":
        assert {"request_id", "charged_sats"} <= set(body["_meta"]), where
    if template == "/api/v1/intelligence/batch":
        assert {"request_id", "charged_sats"} <= set(body["_meta"]), where
        for result in body["results"]:
            if result["status"] == 200:
                assert {"request_id", "charged_sats", "paid_with"} <= set(result["result"]["_meta"]), where
            if result["status"] == 402:
                payment_promise_holds(result, None, True, where)


def dated_and_traced(template: str, body: dict, where) -> None:
    every_figure_traced(body, body["data"] if "data" in body else {k: body[k] for k in TRACED_PULSE_KEYS}, where)
    for entry in body["provenance"].values():
        assert entry["operation"] and set(entry) <= {"operation", "observations", "recompute", "through", "scope"}
        assert "recompute" not in entry or ("observations" in entry and "through" not in entry), where
        assert entry.get("scope", "module") == "module" and ("scope" not in entry or "through" in entry), where


def keeps_the_promises(responses) -> set[int]:
    """Asserts every promise on every response; returns the statuses seen."""
    statuses = set()
    for method, template, resp in responses:
        where = (method, template, resp.status_code, resp.text[:200])
        statuses.add(resp.status_code)
        headers = {k.lower(): v for k, v in resp.headers.items()}
        assert {"x-request-id", "x-data-source", "x-simulated"} <= set(headers), where  # 1
        body = resp.json if headers.get("content-type", "").startswith("application/json") else None
        if resp.status_code == 422:  # 2
            assert body["detail"], where
            assert all(d["loc"][0] in ("query", "body", "path", "header") and d["msg"] and d["type"]
                       for d in body["detail"]), where
        elif resp.status_code >= 400 and template != "/health":  # 3
            assert body["error"]["code"] and body["error"]["message"] and "Traceback" not in resp.text, where
            if resp.status_code == 405:
                assert headers["allow"], where
            if resp.status_code in (429, 503):
                assert int(headers["retry-after"]) > 0, where
            if body["error"]["code"] == "unknown_module":
                assert "did_you_mean" in body["error"], where
        if resp.status_code == 402:  # 4
            payment_promise_holds(body, headers, bool(PAID_PER_REQUEST.match(template.format(**FILL))), where)
        if resp.status_code == 200:  # 5
            served_meta_promised(template, body, where)
        if template in PUBLIC:  # 6
            assert resp.status_code != 401, where
        if resp.status_code == 200 and template in ("/api/v1/intelligence/{module_name}", "/api/v1/pulse"):  # 7
            dated_and_traced(template, body, where)
    return statuses


def test_every_response_keeps_the_promises(client, services):
    statuses = keeps_the_promises(sweep(client, services))
    # the sweep reached every status the promises speak of, so none of them holds vacuously
    assert {200, 401, 402, 403, 404, 405, 409, 422, 429} <= statuses, statuses


def test_answers_before_anything_is_published_keep_the_promises(unpublished_client):
    responses = [(m, t, unpublished_client.simulate_request(m, t.format(**FILL)))
                 for m, t in (("GET", "/api/v1/intelligence/{module_name}"), ("GET", "/api/v1/pulse"),
                              ("GET", "/health"))]
    assert keeps_the_promises(responses) == {503}


def test_public_routes_say_what_they_ignored(client):
    for stranger, said in zip(STRANGERS, ("invalid_api_key", "l402_not_needed", "unsupported_credentials")):
        resp = client.simulate_get("/api/v1/pricing", headers=stranger)
        assert resp.status_code == 200 and resp.headers["X-Credentials-Ignored"] == said
