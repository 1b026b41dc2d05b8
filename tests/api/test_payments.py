"""Invoices from the dev Lightning backend, verification, and topups that credit once."""
import bolt11
import pytest

from tests.api.agent_helpers import auth, fund, register

pytestmark = pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)


def test_create_pay_verify_topup(client):
    key, _ = register(client)
    inv = client.simulate_post("/api/v1/payments/create-invoice", json={"amount_sats": 1234}, headers=auth(key))
    assert inv.status_code == 200
    assert bolt11.decode(inv.json["payment_request"]).amount_msat == 1_234_000
    verify = client.simulate_get(f"/api/v1/payments/verify/{inv.json['payment_hash']}", headers=auth(key))
    assert verify.json["settled"] is False
    from marketintel.lightning.factory import make_backend
    from marketintel.settings import get_settings

    preimage = make_backend(get_settings()).pay(inv.json["payment_request"])
    verify = client.simulate_get(f"/api/v1/payments/verify/{inv.json['payment_hash']}", headers=auth(key))
    assert verify.json["settled"] is True and verify.json["credited"] is False
    proof = {"payment_hash": inv.json["payment_hash"], "preimage": preimage}
    top = client.simulate_post("/api/v1/agents/topup", json=proof, headers=auth(key))
    assert top.status_code == 200 and top.json["balance_sats"] == 1234
    again = client.simulate_post("/api/v1/agents/topup", json=proof, headers=auth(key))
    assert again.status_code == 409 and again.json["error"]["code"] == "already_credited"
    assert client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"] == 1234


def test_wrong_preimage_is_refused(client):
    key, _ = register(client)
    inv = client.simulate_post("/api/v1/payments/create-invoice", json={"amount_sats": 10}, headers=auth(key))
    resp = client.simulate_post("/api/v1/agents/topup", headers=auth(key),
                                json={"payment_hash": inv.json["payment_hash"], "preimage": "00" * 32})
    assert resp.status_code == 422 and resp.json["detail"][0]["loc"] == ["body", "preimage"]


def test_unpaid_invoice_is_not_credited_even_with_its_hash(client):
    key, _ = register(client)
    inv = client.simulate_post("/api/v1/payments/create-invoice", json={"amount_sats": 10}, headers=auth(key))
    resp = client.simulate_post("/api/v1/agents/topup", headers=auth(key),
                                json={"payment_hash": inv.json["payment_hash"], "preimage": "ab" * 32})
    assert resp.status_code == 422  # a preimage that does not hash to the payment hash proves nothing


def test_another_agents_invoice_is_refused(client):
    key_a, _ = register(client, "a")
    key_b, _ = register(client, "b")
    paid = fund(client, key_a, 100)
    resp = client.simulate_post("/api/v1/agents/topup", headers=auth(key_b), json={
        "payment_hash": paid["invoice"]["payment_hash"], "preimage": paid["preimage"]})
    assert resp.status_code == 403


def test_unknown_invoice_is_404(client):
    key, _ = register(client)
    resp = client.simulate_post("/api/v1/agents/topup", headers=auth(key),
                                json={"payment_hash": "ab" * 32, "preimage": "cd" * 32})
    assert resp.status_code == 404


def test_402_invoice_tops_up_the_price(client):
    key, _ = register(client)
    client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))
    challenge = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).json["error"]["invoice"]
    from marketintel.lightning.factory import make_backend
    from marketintel.settings import get_settings

    preimage = make_backend(get_settings()).pay(challenge["payment_request"])
    top = client.simulate_post("/api/v1/agents/topup", headers=auth(key),
                               json={"payment_hash": challenge["payment_hash"], "preimage": preimage})
    assert top.json["balance_sats"] == 50
    paid = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))
    assert paid.status_code == 200 and paid.json["_meta"]["charged_sats"] == 50


def test_register_me_and_hash_only_storage(client, services):
    key, body = register(client, "my-agent")
    assert body["agent_id"] and body["referral_code"] and key.startswith("mi_")
    me = client.simulate_get("/api/v1/agents/me", headers={"Authorization": f"Bearer {key}"})
    assert me.status_code == 200 and me.json["name"] == "my-agent" and me.json["balance_sats"] == 0
    import sqlalchemy as sa

    with services.engine.connect() as conn:
        stored = [row[0] for row in conn.execute(sa.text("SELECT key_hash FROM api_keys"))]
    assert key not in stored and len(stored) == 1
