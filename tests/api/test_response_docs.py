"""/openapi.json documents a body for every status of every operation (api/response_docs.py), and real responses
of the app on real collaborators (embedded Redis, a SQLite ledger, the dev Lightning node, module payloads
computed on simulated data) validate against those schemas with jsonschema (Draft 2020-12)."""
from __future__ import annotations

import jsonschema
import pytest

from tests.api.agent_helpers import auth, fund, register, set_tier


def documented_schema(doc: dict, path: str, method: str, status: int) -> tuple[str, dict]:
    response = doc["paths"][path][method]["responses"][str(status)]
    media, content = next(iter(response["content"].items()))
    return media, content["schema"]


def check(doc: dict, path: str, method: str, resp) -> None:
    """The response's body validates against what the document says of its status, its $refs resolved in the
    document's components."""
    media, schema = documented_schema(doc, path, method, resp.status_code)
    assert media == "application/json" and resp.headers["content-type"].startswith(media), (path, media)
    validator = jsonschema.Draft202012Validator({**schema, "components": doc["components"]})
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(resp.json)]
    assert not errors, (path, resp.status_code, errors[:5])


@pytest.fixture
def doc(client) -> dict:
    return client.simulate_get("/openapi.json").json


def test_every_status_of_every_operation_documents_its_body(doc):
    undocumented = [f"{method.upper()} {path} {status}"
                    for path, item in doc["paths"].items()
                    for method, operation in item.items()
                    for status, response in operation["responses"].items()
                    if not response.get("content", {}) or not all("schema" in c for c in response["content"].values())]
    assert undocumented == ["POST /mcp 202"], undocumented  # a JSON-RPC notification's answer has no body
    assert len(doc["paths"]) > 60  # the sweep saw the whole document


def test_every_documented_ref_resolves(doc):
    """Each schema a status names exists in components, and is a valid Draft 2020-12 schema."""
    schemas = doc["components"]["schemas"]
    for path, item in doc["paths"].items():
        for operation in item.values():
            for response in operation["responses"].values():
                for content in response.get("content", {}).values():
                    ref = content["schema"].get("$ref")
                    if ref:
                        name = ref.rsplit("/", 1)[-1]
                        assert name in schemas, (path, ref)
                        jsonschema.Draft202012Validator.check_schema(schemas[name])


def test_public_routes_answer_what_they_document(client, doc):
    for path in ("/", "/health", "/health/dashboard", "/api/v1/sla", "/api/v1/pulse", "/api/v1/modules",
                 "/api/v1/pricing", "/api/v1/catalog/preview", "/api/v1/sampling/status", "/api/v1/content/types",
                 "/api/v1/subscriptions/plans", "/api/v1/alert-packages", "/api/v1/webhooks/events",
                 "/api/v1/events/scanner", "/api/v1/events/status", "/api/v1/templates",
                 "/api/v1/trading/day-trade-ideas/track-record", "/.well-known/marketintel-signing-key.json",
                 "/mcp", "/mcp/health", "/health/mcp", "/mcp/server-card.json", "/.well-known/mcp/server-card.json",
                 "/.well-known/mcp.json", "/.well-known/agent.json", "/.well-known/agent-card.json",
                 "/api/v1/integrations/functioncalling/tools", "/api/v1/integrations/functioncalling/config",
                 "/api/v1/integrations/chain/config", "/api/v1/integrations/crew/config"):
        resp = client.simulate_get(path)
        assert resp.status_code == 200, (path, resp.text[:200])
        check(doc, path, "get", resp)


def test_module_results_in_every_format_answer_the_documented_envelope(client, doc):
    key, _ = register(client, "formats")
    fund(client, key, 1_000)
    path = "/api/v1/intelligence/{module_name}"
    for fmt in ("full", "compact", "prompt", "agent"):
        resp = client.simulate_get("/api/v1/intelligence/market_intelligence", params={"format": fmt},
                                   headers=auth(key))
        assert resp.status_code == 200, (fmt, resp.text[:200])
        check(doc, path, "get", resp)
    ticker = client.simulate_get("/api/v1/intelligence/technical_analysis", params={"ticker": "AAPL"},
                                 headers=auth(key))
    assert ticker.status_code == 200, ticker.text[:200]
    check(doc, path, "get", ticker)


def test_agent_routes_answer_what_they_document(client, doc, services):
    registered = client.simulate_post("/api/v1/agents/register", json={"name": "documented"})
    check(doc, "/api/v1/agents/register", "post", registered)
    key = registered.json["api_key"]
    funded = fund(client, key, 2_000)
    invoice = client.simulate_post("/api/v1/payments/create-invoice", json={"amount_sats": 100}, headers=auth(key))
    check(doc, "/api/v1/payments/create-invoice", "post", invoice)
    verify = client.simulate_get(f"/api/v1/payments/verify/{funded['invoice']['payment_hash']}", headers=auth(key))
    check(doc, "/api/v1/payments/verify/{payment_hash}", "get", verify)
    for path in ("/api/v1/agents/me", "/api/v1/agents/balance", "/api/v1/catalog", "/api/v1/commitments/plans",
                 "/api/v1/commitments/status", "/api/v1/subscriptions/status", "/api/v1/referrals/code",
                 "/api/v1/referrals/stats", "/api/v1/referrals/credits", "/api/v1/alerts", "/api/v1/alerts/fields",
                 "/api/v1/alert-packages/my", "/api/v1/webhooks/deliveries", "/api/v1/predictions/chain"):
        resp = client.simulate_get(path, headers=auth(key))
        assert resp.status_code == 200, (path, resp.text[:200])
        check(doc, path, "get", resp)
    set_tier(services, registered.json["agent_id"], "premium")  # batch is for the paid tiers
    batch = client.simulate_post("/api/v1/intelligence/batch", headers=auth(key), json={"modules": [
        {"module": "vix"}, {"module": "yield_curve", "format": "compact"}]})
    assert batch.status_code == 200, batch.text[:200]
    check(doc, "/api/v1/intelligence/batch", "post", batch)
    rotated = client.simulate_post("/api/v1/agents/rotate-key", headers=auth(key))
    check(doc, "/api/v1/agents/rotate-key", "post", rotated)


def test_errors_answer_the_documented_error_shapes(client, doc):
    path = "/api/v1/intelligence/{module_name}"
    unknown = client.simulate_get("/api/v1/intelligence/market_inteligence")
    assert unknown.status_code == 404 and unknown.json["error"]["did_you_mean"]
    check(doc, path, "get", unknown)
    assert client.simulate_get("/api/v1/intelligence/vix").status_code == 200  # the day's free query
    unpaid = client.simulate_get("/api/v1/intelligence/vix")
    assert unpaid.status_code == 402 and unpaid.json["error"]["l402"]
    check(doc, path, "get", unpaid)
    catalog = client.simulate_get("/api/v1/catalog")
    assert catalog.status_code == 402
    check(doc, "/api/v1/catalog", "get", catalog)
    anonymous = client.simulate_get("/api/v1/agents/me")
    assert anonymous.status_code == 401
    check(doc, "/api/v1/agents/me", "get", anonymous)
    hashes = client.simulate_get("/api/v1/payments/verify/deadbeef00")
    assert hashes.status_code == 404
    check(doc, "/api/v1/payments/verify/{payment_hash}", "get", hashes)


def test_answers_before_the_first_publish_document_their_503(unpublished_client):
    doc = unpublished_client.simulate_get("/openapi.json").json
    for path in ("/api/v1/pulse", "/health"):
        resp = unpublished_client.simulate_get(path)
        assert resp.status_code == 503, (path, resp.text[:200])
        check(doc, path, "get", resp)


def test_mcp_answers_what_post_mcp_documents(client, doc):
    headers = {"Accept": "application/json", "Content-Type": "application/json"}
    listed = client.simulate_post("/mcp", headers=headers, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert listed.status_code == 200 and len(listed.json["result"]["tools"]) == 4
    check(doc, "/mcp", "post", listed)
    malformed = client.simulate_post("/mcp", headers=headers, body=b"{not json")
    assert malformed.status_code == 400
    check(doc, "/mcp", "post", malformed)
    refused = client.simulate_post("/mcp", headers={**headers, "X-API-Key": "mi_not_a_key"},
                                   json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert refused.status_code == 401
    check(doc, "/mcp", "post", refused)
