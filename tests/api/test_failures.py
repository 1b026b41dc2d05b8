"""Nothing is charged for a failed request: failures after the debit, cancellation, and request ids
that a client repeats."""
import asyncio
import threading

import falcon.testing
import pytest

from api.usage import UsageRecorder
from tests.api.agent_helpers import auth, fund, register, set_tier
from warehouse.ledger import check_consistency

pytestmark = pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)


def balance(client, key) -> int:
    return client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"]


def test_a_repeated_client_request_id_does_not_make_queries_free(client, services):
    key, _ = register(client)
    fund(client, key, 150)
    headers = {**auth(key), "X-Request-ID": "fixed-id-0001"}
    responses = [client.simulate_get("/api/v1/intelligence/vix", headers=headers) for _ in range(5)]
    assert [r.status_code for r in responses] == [200, 200, 200, 200, 402]
    assert [r.json["_meta"]["charged_sats"] for r in responses] == [0, 50, 50, 50, 0]
    assert all(r.headers["X-Client-Request-ID"] == "fixed-id-0001" for r in responses)
    assert len({r.headers["X-Request-ID"] for r in responses}) == 5
    assert balance(client, key) == 0 and check_consistency(services.engine) == []


def test_failure_after_the_debit_is_refunded_and_the_attempt_not_counted(client, services, monkeypatch):
    key, _ = register(client)
    fund(client, key, 100)

    def broken(self, *args):
        raise RuntimeError("queue down")

    monkeypatch.setattr(UsageRecorder, "add_event", broken)
    monkeypatch.setattr(UsageRecorder, "free_record", broken)  # a free query records in its one round trip
    failed_free = client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key))
    assert failed_free.status_code == 500 and "Traceback" not in failed_free.text
    monkeypatch.undo()
    assert client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key)).json["_meta"]["charged_sats"] == 0

    monkeypatch.setattr(UsageRecorder, "add_event", broken)
    failed_paid = client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key))
    assert failed_paid.status_code == 500
    assert balance(client, key) == 100
    assert check_consistency(services.engine) == []


async def funded_key_with_free_query_used(c, settings, sats: int) -> str:
    """Register, top up over the dev node and use the free vix query, all on the conductor's event loop."""
    from marketintel.lightning.factory import make_backend

    key = (await c.simulate_post("/api/v1/agents/register", json={"name": "x"})).json["api_key"]
    inv = (await c.simulate_post("/api/v1/payments/create-invoice", json={"amount_sats": sats},
                                 headers=auth(key))).json
    preimage = make_backend(settings).pay(inv["payment_request"])
    await c.simulate_post("/api/v1/agents/topup", headers=auth(key),
                          json={"payment_hash": inv["payment_hash"], "preimage": preimage})
    await c.simulate_get("/api/v1/intelligence/vix", headers=auth(key))
    return key


def test_a_request_cancelled_during_the_debit_is_refunded(app, client, services, settings, monkeypatch):
    """The whole scenario runs on one event loop (the app's Redis pool is bound to the loop it first used)."""
    real = services.money.debit_for_query_async

    async def slow_debit(*args):
        await asyncio.sleep(0.3)
        return await real(*args)

    async def scenario() -> int:
        async with falcon.testing.ASGIConductor(app) as c:
            key = await funded_key_with_free_query_used(c, settings, 100)
            monkeypatch.setattr(services.money, "debit_for_query_async", slow_debit)
            with pytest.raises((asyncio.TimeoutError, asyncio.CancelledError)):
                await asyncio.wait_for(c.simulate_get("/api/v1/intelligence/vix", headers=auth(key)), 0.1)
            await asyncio.sleep(0.6)  # the debit commits, then the refund follows it
            return (await c.simulate_get("/api/v1/agents/balance", headers=auth(key))).json["balance_sats"]

    assert asyncio.run(scenario()) == 100
    assert check_consistency(services.engine) == []


def test_a_second_cancellation_during_the_debit_still_refunds(app, client, services, settings, monkeypatch):
    """The first cancellation arrives while the debit is on its way to commit, a second one while the request
    waits for that commit: the refund still follows the debit."""
    real, release = services.money.debit_for_query_async, threading.Event()

    async def held_debit(*args):
        while not release.is_set():
            await asyncio.sleep(0.01)
        return await real(*args)

    async def scenario() -> int:
        async with falcon.testing.ASGIConductor(app) as c:
            key = await funded_key_with_free_query_used(c, settings, 100)
            monkeypatch.setattr(services.money, "debit_for_query_async", held_debit)
            query = asyncio.ensure_future(c.simulate_get("/api/v1/intelligence/vix", headers=auth(key)))
            await asyncio.sleep(0.2)
            query.cancel()
            await asyncio.sleep(0.05)
            query.cancel()  # lands while the request waits for the debit's commit
            await asyncio.sleep(0.05)
            release.set()
            with pytest.raises(asyncio.CancelledError):
                await query
            await asyncio.sleep(0.5)  # the debit commits, then the shielded refund follows it
            monkeypatch.setattr(services.money, "debit_for_query_async", real)
            return (await c.simulate_get("/api/v1/agents/balance", headers=auth(key))).json["balance_sats"]

    assert asyncio.run(scenario()) == 100
    assert check_consistency(services.engine) == []


def test_a_batch_item_failing_outside_the_api_errors_is_its_own_entry(client, services, monkeypatch):
    """A Lightning node down while one module's 402 is made, or a data source raising for another: those
    modules get their error entries and are not charged; the modules served stay served and charged."""
    from marketintel.lightning.base import BackendUnavailable

    key, agent = register(client)
    set_tier(services, agent["agent_id"], "premium")
    fund(client, key, 100)
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 200  # the free one

    def node_down(*args, **kwargs):
        raise BackendUnavailable("node down")

    def source_down(*args, **kwargs):
        raise ConnectionError("provider unreachable")

    monkeypatch.setattr(services.lightning, "create_invoice", node_down)
    monkeypatch.setattr(services.provider, "bars", source_down)
    body = {"modules": ["vix", {"module": "technical_analysis", "ticker": "AAPL"}, "vix", "vix"]}
    resp = client.simulate_post("/api/v1/intelligence/batch", json=body, headers=auth(key))
    assert resp.status_code == 200, resp.text
    results = resp.json["results"]
    # vix 50 (balance 50), the ticker module fails (undone), vix 50 (balance 0), vix unpayable: node down
    assert [r["status"] for r in results] == [200, 500, 200, 503]
    assert results[1]["error"]["code"] == "internal_error" and results[3]["error"]["code"] == "lightning_unavailable"
    assert resp.json["_meta"]["charged_sats"] == 100 and balance(client, key) == 0
    assert check_consistency(services.engine) == []
