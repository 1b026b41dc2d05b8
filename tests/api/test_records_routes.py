"""The prediction record's public face: the signing key at its well-known URL (no credential) and the chain
export (any key, never charged), paged so that a verifier reads every record and every signed head once."""
from __future__ import annotations

from intel.hash_chain import GENESIS, verify
from marketintel.signing import load
from tests.api.agent_helpers import auth, register
from tests.chain_records import fill
from warehouse.ledger.records import Records

EXPORT = "/api/v1/predictions/chain"
WELL_KNOWN = "/.well-known/marketintel-signing-key.json"


def test_the_signing_key_is_published_with_the_rules(unpublished_client, settings):
    resp = unpublished_client.simulate_get(WELL_KNOWN, headers={"X-API-Key": "mi_unknown"})
    assert resp.status_code == 200, resp.text
    key = load(settings.home)  # made when the app was created
    document = resp.json
    assert document["public_key_hex"] == key.public_bytes.hex() and document["key_id"] == key.key_id
    assert document["algorithm"] == "Ed25519" and document["genesis_prev_hash"] == GENESIS
    assert document["signed_head_message"] == "{chain}|{day}|{seq}|{hash}" and len(document["how_to_verify"]) >= 5
    assert document["chains"] == {"live": "predictions:live", "backtest": "predictions:backtest"}
    # how forecasts are made and scored; the kinds, published or withheld, once the pipeline has issued statements
    assert "Platt map" in document["forecasting"] and "case-weighted" in document["scoring"]
    assert document["how_to_score"].startswith("marketintel predictions score") and document["kinds"] is None


def test_the_export_pages_through_records_and_heads_and_verifies(unpublished_client, services, settings):
    client = unpublished_client
    fill(Records(services.engine), load(settings.home))
    assert client.simulate_get(EXPORT).status_code == 401  # any key will do, but one is needed
    key, _ = register(client)
    records, heads, after, pages = [], [], 0, 0
    while after is not None:
        page = client.simulate_get(EXPORT, params={"after": after, "limit": 4}, headers=auth(key)).json
        assert page["chain"] == "predictions:live" and len(page["records"]) <= 4
        records, heads, after, pages = records + page["records"], heads + page["heads"], page["next_after"], pages + 1
    assert (len(records), len(heads), pages) == (18, 5, 5)
    assert [r["seq"] for r in records] == list(range(1, 19))
    result = verify("predictions:live", records, heads, load(settings.home).public_bytes)
    assert result.ok, str(result)
    backtest = client.simulate_get(EXPORT, params={"origin": "backtest"}, headers=auth(key)).json
    assert backtest["chain"] == "predictions:backtest" and backtest["records"] == [] and backtest["next_after"] is None
    me = client.simulate_get("/api/v1/agents/me", headers=auth(key)).json
    assert me["balance_sats"] == 0  # never charged


def test_the_export_validates_its_query(unpublished_client):
    key, _ = register(unpublished_client)
    for params, field in (({"limit": "1001"}, "limit"), ({"origin": "paper"}, "origin"), ({"after": "-1"}, "after")):
        resp = unpublished_client.simulate_get(EXPORT, params=params, headers=auth(key))
        assert resp.status_code == 422 and resp.json["detail"][0]["loc"] == ["query", field], resp.text


def test_the_openapi_description_says_how_to_verify(unpublished_client):
    paths = unpublished_client.simulate_get("/openapi.json").json["paths"]
    described = paths[EXPORT]["get"]["description"]
    assert "How to verify" in described and "sha256(bytes.fromhex(prev_hash)" in described
    assert WELL_KNOWN in described
