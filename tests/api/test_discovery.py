"""Pulse, modules, pricing, health, OpenAPI and docs."""
import jsonschema
import orjson

from intel.registry import modules


def test_pulse_is_the_published_payload_with_cache_meta(client, computed_payloads):
    resp = client.simulate_get("/api/v1/pulse")
    assert resp.status_code == 200
    body = resp.json
    assert {"regime", "signals", "correlation_alerts", "composite_score", "premium_teasers"} <= set(body)
    # served as the pipeline published it (its figures are checked in tests/intel/test_pulse_reference.py)
    published = orjson.loads(orjson.dumps(computed_payloads[1]))
    assert {k: v for k, v in body.items() if k != "_meta"} == published
    assert body["_meta"]["cache"]["source"] == "redis" and body["_meta"]["cache"]["age_seconds"] >= 0
    assert body["_meta"]["simulated"] is True


def test_pulse_rate_limit_is_10_per_minute_per_ip(client):
    codes = [client.simulate_get("/api/v1/pulse", remote_addr="10.9.9.9").status_code for _ in range(11)]
    assert codes == [200] * 10 + [429]
    limited = client.simulate_get("/api/v1/pulse", remote_addr="10.9.9.9")
    assert limited.status_code == 429 and 1 <= int(limited.headers["Retry-After"]) <= 60
    assert client.simulate_get("/api/v1/pulse", remote_addr="10.9.9.8").status_code == 200


def test_modules_and_pricing_come_from_the_registry(client):
    from intel.registry import modules

    listed = client.simulate_get("/api/v1/modules").json
    assert {m["name"] for m in listed["modules"]} == set(modules())
    prices = {m["name"]: m["price_sats"] for m in listed["modules"]}
    assert prices["market_intelligence"] == 50 and prices["market_regime"] == 250
    pricing = client.simulate_get("/api/v1/pricing").json
    assert pricing["per_query"] == {"standard": 50, "proprietary": 250}
    assert "market_regime" in pricing["modules"]["proprietary"]


def test_health_ok_when_published(client):
    resp = client.simulate_get("/health")
    assert resp.status_code == 200 and resp.json["checks"] == {"redis": "ok", "ledger": "ok", "data": "ok"}


def test_health_503_before_first_publish(unpublished_client):
    resp = unpublished_client.simulate_get("/health")
    assert resp.status_code == 503 and resp.json["checks"]["data"] == "not yet published"


def test_openapi_is_generated_from_the_declarations(client):
    spec = client.simulate_get("/openapi.json").json
    op = spec["paths"]["/api/v1/intelligence/{module_name}"]["get"]
    params = {p["name"]: p for p in op["parameters"]}
    assert params["format"]["schema"]["enum"] == ["full", "compact", "prompt", "agent"]
    ticker = params["ticker"]["schema"]
    assert 10 in [s.get("maxLength") for s in ticker.get("anyOf", [ticker])]
    assert "/api/v1/agents/register" in spec["paths"] and "/api/v1/pulse" in spec["paths"]
    assert op["responses"]["422"]["content"]["application/json"]["schema"]["$ref"].endswith("ValidationErrorResponse")
    docs = client.simulate_get("/docs")
    assert docs.status_code == 200 and "/openapi.json" in docs.text and "https://" not in docs.text
    bundle = client.simulate_get("/docs/assets/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and len(bundle.content) > 100_000


def test_openapi_answers_each_module_with_its_own_fields(client, computed_payloads):
    """The module route's 200 is one schema per module, chosen by `module`; the published answer fits its own."""
    spec = client.simulate_get("/openapi.json").json
    answer = spec["paths"]["/api/v1/intelligence/{module_name}"]["get"]["responses"]["200"]
    union = answer["content"]["application/json"]["schema"]
    mapping = union["discriminator"]["mapping"]
    assert set(mapping) == set(modules()) and [r["$ref"] for r in union["oneOf"]] == list(mapping.values())
    score = spec["components"]["schemas"]["ModuleResult_fear_greed"]["properties"]["data"]["properties"]["score"]
    assert score["type"] == ["number", "null"] and score["description"]
    for name, fmt in (("fear_greed", "full"), ("vix", "compact")):  # a free query each
        body = client.simulate_get(f"/api/v1/intelligence/{name}", params={"format": fmt}).json
        assert body["module"] == name
        validator = jsonschema.Draft202012Validator({**union, "components": spec["components"]})
        assert not list(validator.iter_errors(body)), fmt


def test_root_lists_links(client):
    body = client.simulate_get("/").json
    assert body["links"]["pulse"] == "/api/v1/pulse" and body["simulated"] is True


def test_every_response_says_where_its_data_comes_from(client):
    key = client.simulate_post("/api/v1/agents/register", json={"name": "h"}).json["api_key"]
    for resp in (client.simulate_get("/api/v1/agents/balance", headers={"X-API-Key": key}),
                 client.simulate_get("/api/v1/nowhere"),
                 client.simulate_post("/api/v1/agents/register", json={})):
        assert resp.headers["X-Data-Source"] == "sim" and resp.headers["X-Simulated"] == "true"


def test_openapi_declares_each_operations_credentials_as_the_server_acts(client):
    """Schemes for the key header, Bearer, L402 and MPP's Payment; every operation's `security` from the resource
    attributes the Authentication middleware reads. tests/api/test_fuzz_openapi.py holds the server to them:
    schemathesis's auth checks send each keyed case again without the key and with a wrong one."""
    spec = client.simulate_get("/openapi.json").json
    assert set(spec["components"]["securitySchemes"]) == {"ApiKey", "Bearer", "L402", "Payment"}
    assert spec["components"]["securitySchemes"]["ApiKey"]["name"] == "X-API-Key"
    operations = {(path, method): op for path, item in spec["paths"].items() for method, op in item.items()}
    assert all("security" in op for op in operations.values())
    key, anyone = [{"ApiKey": []}, {"Bearer": []}], {}
    assert operations[("/api/v1/pulse", "get")]["security"] == [anyone, *key]  # public: a key only identifies
    assert operations[("/api/v1/agents/balance", "get")]["security"] == key  # a key or nothing
    module = operations[("/api/v1/intelligence/{module_name}", "get")]["security"]
    assert {"L402": []} in module and {"Payment": []} in module and anyone not in module  # else a 402 to pay
    assert anyone in operations[("/api/v1/intelligence/parallels", "get")]["security"]  # the free query a day
    stream = {p["name"]: p for p in operations[("/api/v1/events/stream", "get")]["parameters"]}
    assert stream["Last-Event-ID"]["in"] == "header" and stream["Last-Event-ID"]["schema"]["pattern"] == r"^\d+-0$"


def test_each_priced_operation_says_what_it_charges_from_the_price_list(client, services):
    spec = client.simulate_get("/openapi.json").json
    price = {(path, method): op["x-price"] for path, item in spec["paths"].items() for method, op in item.items()
             if "x-price" in op}
    module = price[("/api/v1/intelligence/{module_name}", "get")]["items"]
    prices = [item.price_sats for key, item in services.prices.items.items() if key.startswith("module:")]
    assert module["module:*"] == {"from_sats": min(prices), "to_sats": max(prices)} and "past:*" in module
    assert price[("/api/v1/catalog", "get")]["items"] == {"catalog": {"sats": services.prices.catalog.price_sats}}
    assert price[("/api/v1/trading/day-trade-ideas", "get")]["items"]["pass:daytrade"]["usd"] == (
        services.prices.daytrade_pass.usd_price)
    assert ("/api/v1/intelligence/batch", "post") in price and ("/api/v1/pulse", "get") not in price
    assert all(p["currency"] == "sat" and p["list"] == "/api/v1/pricing" for p in price.values())
