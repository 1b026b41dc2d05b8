"""Nothing is charged for a failed request: failures after the debit, cancellation, and request ids
that a client repeats."""
import asyncio
import time
from datetime import date, timedelta

import falcon.testing
import pytest
import redis

from marketintel.redis_server import free_port
from tests.api.agent_helpers import auth, fund, register, set_tier
from tests.api.usage_faults import ledger_moves, usage_stream_broken
from warehouse import keys
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


def test_failure_after_the_debit_is_refunded_and_the_attempt_not_counted(client, services, settings):
    """The usage event cannot be written (its stream key holds a string: XADD fails with WRONGTYPE in Redis)."""
    key, _ = register(client)
    fund(client, key, 100)
    r = redis.Redis.from_url(settings.effective_redis_url)

    with usage_stream_broken(r):  # a free query records its event in its one round trip
        failed_free = client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key))
    assert failed_free.status_code == 500 and "Traceback" not in failed_free.text
    assert client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key)).json["_meta"]["charged_sats"] == 0

    with usage_stream_broken(r):  # a paid one after its debit
        failed_paid = client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key))
    assert failed_paid.status_code == 500
    assert balance(client, key) == 100
    assert [kind for kind, *_ in ledger_moves(services.engine)] == ["query", "refund"]  # debited, then refunded
    assert check_consistency(services.engine) == []



def test_a_cached_payload_redis_refuses_fails_the_query_without_using_the_free_one(client, services, settings):
    """The module's cached rendering cannot be read (its key a list: GET fails with WRONGTYPE inside the one
    round trip, after the free allowance was counted): the count is taken back with the failure."""
    key, _ = register(client)
    r = redis.Redis.from_url(settings.effective_redis_url)
    cached = keys.module("yield_curve", "full")
    payload = r.get(cached)
    r.delete(cached)
    r.rpush(cached, "not a payload")
    failed = client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key))
    assert failed.status_code == 500 and "Traceback" not in failed.text
    r.delete(cached)
    r.set(cached, payload)
    served = client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key)).json["_meta"]
    assert (served["charged_sats"], served["paid_with"]) == (0, "free_allowance")
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


async def debited_then_refunded(engine, timeout_s: float = 10.0) -> list[tuple]:
    """Wait until the ledger shows a refund (the undo runs on after the cancelled request is gone); then the
    query entries, or what there is at the deadline."""
    deadline = time.monotonic() + timeout_s
    while True:
        entries = await asyncio.to_thread(ledger_moves, engine)
        if any(kind == "refund" for kind, *_ in entries) or time.monotonic() > deadline:
            return entries
        await asyncio.sleep(0.01)


def held(services, monkeypatch) -> tuple[asyncio.Event, asyncio.Event, asyncio.Event]:
    """Hold the request's debit until `release` (the real one runs then), and say when the request has
    entered it and when it has reached its undo (the real undo runs): (entered, undoing, release), on the
    running loop."""
    real_debit, real_undo = services.money.debit_for_query_async, services.charging.undo
    entered, undoing, release = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def held_debit(*args):
        entered.set()
        await release.wait()
        return await real_debit(*args)

    async def observed_undo(attempt):
        undoing.set()
        await real_undo(attempt)

    monkeypatch.setattr(services.money, "debit_for_query_async", held_debit)
    monkeypatch.setattr(services.charging, "undo", observed_undo)
    return entered, undoing, release


def test_a_request_cancelled_during_the_debit_is_refunded(app, client, services, settings, monkeypatch):
    """The whole scenario runs on one event loop (the app's Redis pool is bound to the loop it first used)."""
    async def scenario() -> list[tuple]:
        async with falcon.testing.ASGIConductor(app) as c:
            key = await funded_key_with_free_query_used(c, settings, 100)
            entered, undoing, release = held(services, monkeypatch)
            query = asyncio.ensure_future(c.simulate_get("/api/v1/intelligence/vix", headers=auth(key)))
            await asyncio.wait_for(entered.wait(), 10)  # the request is in its debit
            query.cancel()
            await asyncio.wait_for(undoing.wait(), 10)  # cancelled, it undoes a debit not yet committed
            release.set()  # the debit commits after its request was cancelled
            with pytest.raises(asyncio.CancelledError):
                await query
            entries = await debited_then_refunded(services.engine)
            monkeypatch.undo()
            assert (await c.simulate_get("/api/v1/agents/balance", headers=auth(key))).json["balance_sats"] == 100
            return entries

    (kind, sats, ref), refund = asyncio.run(scenario())
    assert (kind, sats) == ("query", -50) and refund == ("refund", 50, ref)  # the debit, then its exact refund
    assert check_consistency(services.engine) == []


def test_a_second_cancellation_during_the_debit_still_refunds(app, client, services, settings, monkeypatch):
    """The first cancellation arrives while the debit is on its way to commit, a second one while the request
    waits for that commit: the refund still follows the debit."""
    async def scenario() -> list[tuple]:
        async with falcon.testing.ASGIConductor(app) as c:
            key = await funded_key_with_free_query_used(c, settings, 100)
            entered, undoing, release = held(services, monkeypatch)
            query = asyncio.ensure_future(c.simulate_get("/api/v1/intelligence/vix", headers=auth(key)))
            await asyncio.wait_for(entered.wait(), 10)  # the request is in its debit
            query.cancel()
            await asyncio.wait_for(undoing.wait(), 10)  # it took the cancellation: its undo waits for the debit
            query.cancel()  # lands while the request waits for the debit's commit
            release.set()
            with pytest.raises(asyncio.CancelledError):
                await query
            entries = await debited_then_refunded(services.engine)  # the shielded refund follows the debit
            monkeypatch.undo()
            assert (await c.simulate_get("/api/v1/agents/balance", headers=auth(key))).json["balance_sats"] == 100
            return entries

    (kind, sats, ref), refund = asyncio.run(scenario())
    assert (kind, sats) == ("query", -50) and refund == ("refund", 50, ref)
    assert check_consistency(services.engine) == []


def client_with_the_node_down(monkeypatch) -> falcon.testing.TestClient:
    """The same service (ledger, Redis, clock) whose Lightning node is down: the real LND client on a port where
    nothing listens."""
    from api.app import create_app
    from marketintel.settings import get_settings

    monkeypatch.setenv("MI_LIGHTNING_BACKEND", "lnd")
    monkeypatch.setenv("MI_LND_URL", f"https://127.0.0.1:{free_port()}")
    monkeypatch.setenv("MI_LND_MACAROON", "0201036c6e64")
    get_settings.cache_clear()
    return falcon.testing.TestClient(create_app(get_settings()))


def ticker_cache_broken(r: redis.Redis, module: str, ticker: str, today: date) -> None:
    """The ticker module's cache key in Redis holds a list (GET fails with WRONGTYPE), for every closed day a
    query of the next minutes can ask for."""
    for back in range(-1, 7):
        key = keys.ticker_payload(module, ticker, today - timedelta(days=back))
        r.delete(key)
        r.rpush(key, "not a payload")


def test_a_batch_item_failing_outside_the_api_errors_is_its_own_entry(client, services, settings, monkeypatch):
    """A Lightning node down while one module's 402 is made, or Redis refusing another's cached ticker payload
    (a key of the wrong type): those modules get their error entries and are not charged; the modules served
    stay served and charged."""
    key, agent = register(client)
    set_tier(services, agent["agent_id"], "premium")
    fund(client, key, 100)
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 200  # the free one

    ticker_cache_broken(redis.Redis.from_url(settings.effective_redis_url), "technical_analysis", "AAPL",
                        services.clock.now().date())
    node_down = client_with_the_node_down(monkeypatch)
    body = {"modules": ["vix", {"module": "technical_analysis", "ticker": "AAPL"}, "vix", "vix"]}
    resp = node_down.simulate_post("/api/v1/intelligence/batch", json=body, headers=auth(key))
    assert resp.status_code == 200, resp.text
    results = resp.json["results"]
    # vix 50 (balance 50), the ticker module fails (undone), vix 50 (balance 0), vix unpayable: node down
    assert [r["status"] for r in results] == [200, 500, 200, 503]
    assert results[1]["error"]["code"] == "internal_error" and results[3]["error"]["code"] == "lightning_unavailable"
    assert resp.json["_meta"]["charged_sats"] == 100 and balance(client, key) == 0
    assert [(kind, sats) for kind, sats, _ in ledger_moves(services.engine)] == [("query", -50), ("query", -50)]
    assert check_consistency(services.engine) == []
