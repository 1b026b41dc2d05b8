"""Bad input: 422 in the standard shape, 401 for a bad key, 404 with close names; nothing charged."""
from tests.api.agent_helpers import auth, fund, register


def detail_locs(resp) -> list[list]:
    assert resp.status_code == 422, resp.text
    assert set(resp.json) == {"detail"}
    for item in resp.json["detail"]:
        assert set(item) == {"loc", "msg", "type"}
    return [item["loc"] for item in resp.json["detail"]]


def test_unknown_format_is_422_in_query(client):
    resp = client.simulate_get("/api/v1/intelligence/vix", params={"format": "xml"})
    assert detail_locs(resp) == [["query", "format"]]


def test_ticker_over_ten_characters_is_422(client):
    resp = client.simulate_get("/api/v1/intelligence/technical_analysis", params={"ticker": "ABCDEFGHIJK"})
    assert ["query", "ticker"] in detail_locs(resp)


def test_ticker_module_without_ticker_is_422(client):
    resp = client.simulate_get("/api/v1/intelligence/technical_analysis")
    assert detail_locs(resp) == [["query", "ticker"]]


def test_malformed_json_body_is_422(client):
    resp = client.simulate_post("/api/v1/agents/register", body="{not json",
                                headers={"Content-Type": "application/json"})
    assert detail_locs(resp) == [["body"]]
    assert resp.json["detail"][0]["type"] == "json_invalid"


def test_missing_name_is_422(client):
    resp = client.simulate_post("/api/v1/agents/register", json={})
    assert detail_locs(resp) == [["body", "name"]]


def test_bad_payment_hash_in_path_is_422(client):
    key, _ = register(client)
    resp = client.simulate_get("/api/v1/payments/verify/short", headers=auth(key))
    assert detail_locs(resp) == [["path", "payment_hash"]]


def test_bad_key_is_401_in_error_shape(client):
    resp = client.simulate_get("/api/v1/agents/me", headers={"X-API-Key": "mi_not-a-real-key"})
    assert resp.status_code == 401
    assert resp.json["error"]["code"] == "invalid_api_key"
    resp = client.simulate_get("/api/v1/agents/me", headers={"Authorization": "Bearer mi_nope"})
    assert resp.status_code == 401


def test_no_key_on_private_route_is_401(client):
    resp = client.simulate_get("/api/v1/agents/balance")
    assert resp.status_code == 401
    assert resp.json["error"]["code"] == "missing_credentials"


def test_unknown_module_is_404_with_close_names(client):
    resp = client.simulate_get("/api/v1/intelligence/market_inteligence")
    assert resp.status_code == 404
    assert resp.json["error"]["code"] == "unknown_module"
    assert "market_intelligence" in resp.json["error"]["did_you_mean"]


def test_unknown_route_uses_error_shape(client):
    resp = client.simulate_get("/api/v1/nowhere")
    assert resp.status_code == 404
    assert "error" in resp.json


def test_failed_requests_charge_nothing(client):
    key, _ = register(client)
    fund(client, key, 500)
    failures = [
        client.simulate_get("/api/v1/intelligence/vix", params={"format": "xml"}, headers=auth(key)),
        client.simulate_get("/api/v1/intelligence/technical_analysis", params={"ticker": "TOOLONGTICKER"},
                            headers=auth(key)),
        client.simulate_get("/api/v1/intelligence/vixx", headers=auth(key)),
    ]
    assert [r.status_code for r in failures] == [422, 422, 404]
    assert client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"] == 500
    # the free query of vix is still there after the failed attempts
    ok = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))
    assert ok.status_code == 200
    assert ok.json["_meta"]["charged_sats"] == 0


def test_unpublished_module_is_503_and_free_query_kept(unpublished_client):
    c = unpublished_client
    resp = c.simulate_get("/api/v1/intelligence/vix")
    assert resp.status_code == 503
    assert resp.json["error"]["code"] == "data_not_ready"
    assert "Retry-After" in resp.headers
    left = {m["name"]: m["free_queries_left_today"] for m in c.simulate_get("/api/v1/modules").json["modules"]}
    assert left["vix"] == 1
