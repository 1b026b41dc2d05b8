"""One free query per module per day, then the price from the balance, else 402 with an invoice."""
import asyncio

import bolt11
import falcon.testing
import pytest

from tests.api.agent_helpers import auth, fund, register

pytestmark = pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)


def test_free_then_402_with_invoice_for_the_price(client):
    key, _ = register(client)
    first = client.simulate_get("/api/v1/intelligence/market_intelligence", headers=auth(key))
    assert first.status_code == 200
    meta = first.json["_meta"]
    assert (meta["charged_sats"], meta["free_queries_left"], meta["price_sats"]) == (0, 0, 50)
    assert meta["simulated"] is True and meta["data_source"] == "sim"
    second = client.simulate_get("/api/v1/intelligence/market_intelligence", headers=auth(key))
    assert second.status_code == 402
    err = second.json["error"]
    assert err["code"] == "payment_required" and err["price_sats"] == 50
    decoded = bolt11.decode(err["invoice"]["payment_request"])
    assert decoded.amount_msat == 50_000 and decoded.payment_hash == err["invoice"]["payment_hash"]


def test_free_allowance_is_per_module(client):
    key, _ = register(client)
    for name in ("vix", "bitcoin", "yield_curve"):
        assert client.simulate_get(f"/api/v1/intelligence/{name}", headers=auth(key)).status_code == 200
    listed = client.simulate_get("/api/v1/modules", headers=auth(key)).json["modules"]
    left = {m["name"]: m["free_queries_left_today"] for m in listed}
    assert left["vix"] == left["bitcoin"] == left["yield_curve"] == 0
    assert left["inflation"] == 1


def test_paid_query_debits_price_and_ledger(client, services):
    key, _ = register(client)
    fund(client, key, 300)
    client.simulate_get("/api/v1/intelligence/market_regime", headers=auth(key))  # free
    paid = client.simulate_get("/api/v1/intelligence/market_regime", headers=auth(key))
    assert paid.status_code == 200
    assert paid.json["_meta"]["charged_sats"] == 250 and paid.json["_meta"]["balance_sats"] == 50
    assert client.simulate_get("/api/v1/intelligence/market_regime", headers=auth(key)).status_code == 402
    from warehouse.ledger import check_consistency

    assert check_consistency(services.engine) == []


def test_anonymous_allowance_is_per_client_address(client):
    assert client.simulate_get("/api/v1/intelligence/vix", remote_addr="10.1.1.1").status_code == 200
    assert client.simulate_get("/api/v1/intelligence/vix", remote_addr="10.1.1.1").status_code == 402
    assert client.simulate_get("/api/v1/intelligence/vix", remote_addr="10.1.1.2").status_code == 200


def test_concurrent_paid_queries_never_overspend(client, app):
    key, _ = register(client)
    fund(client, key, 50 * 7)

    async def burst():
        async with falcon.testing.ASGIConductor(app) as conductor:
            return await asyncio.gather(*[
                conductor.simulate_get("/api/v1/intelligence/credit_spreads", headers=auth(key)) for _ in range(20)])

    statuses = sorted(r.status_code for r in asyncio.run(burst()))
    assert statuses.count(200) == 8  # one free + seven paid
    assert statuses.count(402) == 12
    assert client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"] == 0


def test_repeated_402_reuses_the_open_invoice_until_it_is_paid(client, settings):
    key, _ = register(client)
    client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))
    first = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).json["error"]["invoice"]
    again = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).json["error"]["invoice"]
    assert again["payment_hash"] == first["payment_hash"]
    from marketintel.lightning.factory import make_backend

    preimage = make_backend(settings).pay(first["payment_request"])
    client.simulate_post("/api/v1/agents/topup", headers=auth(key),
                         json={"payment_hash": first["payment_hash"], "preimage": preimage})
    client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))  # spends the 50 sats
    after = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).json["error"]["invoice"]
    assert after["payment_hash"] != first["payment_hash"]  # a credited invoice is never offered again
