"""Ask and its poll target on real parts: the API through falcon.testing, a real RQ worker (rq.SimpleWorker in a
thread of this process, on the embedded Redis), the SQLite ledger, the dev Lightning node, and every non-ticker
module computed on sim data and published with the real serving cache. Faults are injected by replacing the
job's body (the answer) with one that raises: the charging, queueing, retry and refund paths are the real ones."""
from __future__ import annotations

import threading
import time

import pytest
import redis
from rq import SimpleWorker
from rq.job import Job
from rq.timeouts import TimerDeathPenalty
from sqlalchemy import select

from intel.synthesis.published import value_at
from jobs.queues import QUEUE
from tests.api.agent_helpers import auth, fund, register
from warehouse import keys
from warehouse.ledger import check_consistency
from warehouse.ledger.tables import ledger_entries

ASK = "/api/v1/intelligence/ask"
QUESTION = {"question": "Is the yield curve inverted, and what does it mean for equities?", "depth": "quick"}


class ThreadWorker(SimpleWorker):
    """RQ's in-process worker, runnable off the main thread: no signal handlers, a timer for job timeouts."""

    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self):
        pass


@pytest.fixture
def worker(settings):
    """A real RQ worker on the API's queue, working in a thread until the test ends."""
    connection = redis.Redis.from_url(settings.effective_redis_url)
    stop = threading.Event()

    def loop():
        while not stop.is_set():
            ThreadWorker([QUEUE], connection=connection).work(burst=True, with_scheduler=False)
            stop.wait(0.02)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join(30)


def burst(settings) -> None:
    """Run every queued job now, in this thread (for tests that let the window pass first)."""
    ThreadWorker([QUEUE], connection=redis.Redis.from_url(settings.effective_redis_url)).work(
        burst=True, with_scheduler=False)


def funded(client, sats: int, name: str = "asker") -> str:
    key, _ = register(client, name)
    fund(client, key, sats)
    return key


def balance(client, key: str) -> int:
    return client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"]


def entries(services, reference: str) -> list[tuple[str, int]]:
    with services.engine.connect() as conn:
        return sorted((r.kind, int(r.amount_sats)) for r in conn.execute(
            select(ledger_entries.c.kind, ledger_entries.c.amount_sats).where(ledger_entries.c.reference == reference)))


def failing_answer(times: int):
    """A job body that raises its first `times` calls, then answers as the real one does."""
    from jobs import synthesis

    real, calls = synthesis.answer_question, []

    def answer(*args, **kwargs):
        calls.append(1)
        if len(calls) <= times:
            raise RuntimeError("the engine fell over")
        return real(*args, **kwargs)

    answer.calls = calls
    return answer


def test_an_ask_at_each_depth_is_charged_its_price_once_and_cites_published_figures(client, services, worker,
                                                                                   computed_payloads):
    key = funded(client, 2000)
    payloads, _ = computed_payloads
    for depth, price in (("quick", 200), ("standard", 500), ("deep", 1000)):
        resp = client.simulate_post(ASK, headers=auth(key), json={**QUESTION, "depth": depth})
        assert resp.status_code == 200, resp.text
        meta = resp.json["_meta"]
        assert (meta["price_sats"], meta["charged_sats"], meta["paid_with"], meta["status"]) == \
            (price, price, "balance", "done")
        assert meta["simulated"] is True and resp.json["simulated"] is True
        assert entries(services, meta["request_id"]) == [("query", -price)]
        for fig in resp.json["supporting_data"]:  # every figure is the published one, at its path
            assert value_at(payloads[fig["module"]]["data"], fig["field"]) == fig["value"]
            assert fig["as_of"] == str(payloads[fig["module"]]["as_of"])
    assert balance(client, key) == 2000 - 1700 and check_consistency(services.engine) == []


def test_without_funds_an_ask_is_a_402_and_nothing_is_queued(client, services):
    key, _ = register(client, "broke")
    resp = client.simulate_post(ASK, headers=auth(key), json=QUESTION)
    assert resp.status_code == 402, resp.text
    assert resp.json["error"]["item"] == "ask:quick" and resp.json["error"]["price_sats"] == 200
    anonymous = client.simulate_post(ASK, json={**QUESTION, "depth": "deep"})  # no key: payable with L402
    assert anonymous.status_code == 402 and anonymous.json["error"]["l402"]["amount_sats"] == 1000
    assert anonymous.headers["WWW-Authenticate"].startswith("L402 ")
    assert services.jobs.count == 0


def test_past_the_window_an_ask_is_a_202_then_its_result_on_poll(client, services, settings, monkeypatch):
    monkeypatch.setattr(settings, "ask_window_quick_s", 0.05)
    key = funded(client, 500)
    began = time.monotonic()
    resp = client.simulate_post(ASK, headers=auth(key), json=QUESTION)
    assert resp.status_code == 202, resp.text
    assert time.monotonic() - began < 5
    request_id = resp.json["request_id"]
    poll = f"/api/v1/synthesis/result/{request_id}"
    assert resp.json == {"request_id": request_id, "status": "queued", "poll": poll, "retry_after_s": 2,
                         "_meta": resp.json["_meta"]}
    assert resp.headers["Location"] == poll and resp.headers["Retry-After"] == "2"
    assert resp.json["_meta"]["charged_sats"] == 200

    waiting = client.simulate_get(poll, headers=auth(key))
    assert waiting.status_code == 202 and waiting.json["status"] == "queued"
    burst(settings)
    done = client.simulate_get(poll, headers=auth(key))
    assert done.status_code == 200 and done.json["_meta"]["request_id"] == request_id
    assert done.json["supporting_data"] and balance(client, key) == 300


def test_ask_async_answers_202_at_once(client, services, worker):
    key = funded(client, 500)
    resp = client.simulate_post(f"{ASK}/async", headers=auth(key), json=QUESTION)
    assert resp.status_code == 202 and resp.json["status"] in ("queued", "running", "done")
    poll = resp.json["poll"]
    deadline = time.monotonic() + 30
    while (result := client.simulate_get(poll, headers=auth(key))).status_code == 202:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert result.status_code == 200 and result.json["_meta"]["charged_sats"] == 200


def test_only_the_asker_reads_the_result(client, settings, monkeypatch):
    monkeypatch.setattr(settings, "ask_window_quick_s", 0)
    key, other = funded(client, 500), funded(client, 500, "other")
    poll = client.simulate_post(ASK, headers=auth(key), json=QUESTION).json["poll"]
    burst(settings)
    assert client.simulate_get(poll, headers=auth(key)).status_code == 200
    for headers in (auth(other), {}):  # another agent, or no key at all: as if it did not exist
        resp = client.simulate_get(poll, headers=headers)
        assert resp.status_code == 404 and resp.json["error"]["code"] == "unknown_request"
    unknown = client.simulate_get("/api/v1/synthesis/result/0123456789abcdef", headers=auth(key))
    assert unknown.status_code == 404 and unknown.json["error"]["code"] == "unknown_request"
    assert client.simulate_get("/api/v1/synthesis/result/x", headers=auth(key)).status_code == 422


def test_a_job_that_fails_for_good_is_refunded_exactly_once(client, services, settings, worker, monkeypatch):
    answer = failing_answer(times=99)
    monkeypatch.setattr("jobs.synthesis.answer_question", answer)
    key = funded(client, 1000)
    resp = client.simulate_post(ASK, headers=auth(key), json={**QUESTION, "depth": "standard"})
    assert resp.status_code == 500, resp.text
    body = resp.json
    assert body["status"] == "failed" and body["refunded"] is True and body["error"]["refunded"] is True
    assert body["error"]["code"] == "synthesis_failed" and "RuntimeError" in body["error"]["message"]
    assert body["_meta"]["charged_sats"] == 0 and body["_meta"]["refunded_sats"] == 500
    assert len(answer.calls) == 1 + settings.synthesis_retries  # RQ retried it before giving up
    request_id = body["request_id"]
    assert entries(services, request_id) == [("query", -500), ("refund", 500)]

    # every other path that could notice the failure finds the refund taken
    from jobs.synthesis_failures import ended

    ended(Job.fetch(request_id, connection=services.jobs.connection), "noticed again")
    poll = client.simulate_get(f"/api/v1/synthesis/result/{request_id}", headers=auth(key))
    assert poll.status_code == 500 and poll.json["refunded"] is True
    assert entries(services, request_id) == [("query", -500), ("refund", 500)]
    assert balance(client, key) == 1000 and check_consistency(services.engine) == []


def test_a_retried_job_answers_and_is_charged_once(client, services, worker, monkeypatch):
    answer = failing_answer(times=1)
    monkeypatch.setattr("jobs.synthesis.answer_question", answer)
    key = funded(client, 1000)
    resp = client.simulate_post(ASK, headers=auth(key), json=QUESTION)
    assert resp.status_code == 200, resp.text
    assert len(answer.calls) == 2
    assert entries(services, resp.json["_meta"]["request_id"]) == [("query", -200)]
    stored = redis.Redis.from_url(services.settings.effective_redis_url).hget(
        keys.synthesis_job(resp.json["_meta"]["request_id"]), "tries")
    assert stored == b"2" and balance(client, key) == 800


def test_an_idempotency_key_repeat_is_the_same_request_charged_once(client, services, worker):
    key = funded(client, 1000)
    headers = {**auth(key), "Idempotency-Key": "order-7f3a"}
    first = client.simulate_post(ASK, headers=headers, json=QUESTION)
    repeat = client.simulate_post(ASK, headers=headers, json=QUESTION)
    assert first.status_code == repeat.status_code == 200, repeat.text
    assert repeat.json["_meta"]["request_id"] == first.json["_meta"]["request_id"]
    assert repeat.json["_meta"]["charged_sats"] == 0 and repeat.json["_meta"]["idempotent_replay"] is True
    assert repeat.json["supporting_data"] == first.json["supporting_data"]
    assert balance(client, key) == 800
    other = client.simulate_post(ASK, headers=headers, json={**QUESTION, "question": "What about gold?"})
    assert other.status_code == 409 and other.json["error"]["code"] == "idempotency_key_reused"
    bad = client.simulate_post(ASK, headers={**auth(key), "Idempotency-Key": "has space"}, json=QUESTION)
    assert bad.status_code == 422 and bad.json["detail"][0]["loc"] == ["header", "Idempotency-Key"]
    assert balance(client, key) == 800


def test_before_the_first_publish_an_ask_is_a_503_and_nothing_is_charged(unpublished_client, services):
    key = funded(unpublished_client, 500)
    resp = unpublished_client.simulate_post(ASK, headers=auth(key), json=QUESTION)
    assert resp.status_code == 503 and resp.json["error"]["code"] == "data_not_ready"
    assert "Retry-After" in resp.headers and balance(unpublished_client, key) == 500
    assert services.jobs.count == 0


def test_a_queue_that_refuses_the_job_undoes_the_charge_at_once(client, services, monkeypatch):
    key = funded(client, 500)

    def refuse(*args, **kwargs):
        raise redis.ConnectionError("queue unreachable")

    monkeypatch.setattr(services.jobs, "enqueue", refuse)
    resp = client.simulate_post(ASK, headers=auth(key), json=QUESTION)
    # the queue is Redis: a 503 naming it, as any request that finds Redis down (api/errors.py)
    assert resp.status_code == 503 and resp.json["error"]["dependency"] == "redis", resp.text
    assert "Nothing was charged" in resp.json["error"]["message"] and resp.headers["Retry-After"]
    assert balance(client, key) == 500 and check_consistency(services.engine) == []


def test_a_lost_job_is_failed_and_refunded_by_the_poll(client, services, settings, monkeypatch):
    monkeypatch.setattr(settings, "ask_window_quick_s", 0)
    key = funded(client, 500)
    resp = client.simulate_post(ASK, headers=auth(key), json=QUESTION)
    request_id = resp.json["request_id"]
    Job.fetch(request_id, connection=services.jobs.connection).delete()  # as if Redis lost the queued job
    connection = redis.Redis.from_url(settings.effective_redis_url)
    connection.hset(keys.synthesis_job(request_id), "created_at", repr(time.time() - 3600))
    poll = client.simulate_get(resp.json["poll"], headers=auth(key))
    assert poll.status_code == 500 and poll.json["refunded"] is True, poll.text
    assert "lost" in poll.json["error"]["message"]
    assert entries(services, request_id) == [("query", -200), ("refund", 200)] and balance(client, key) == 500


def test_a_failed_rq_job_without_its_callback_is_refunded_by_the_poll(client, services, settings, monkeypatch):
    monkeypatch.setattr(settings, "ask_window_quick_s", 0)
    key = funded(client, 500)
    resp = client.simulate_post(ASK, headers=auth(key), json=QUESTION)
    request_id = resp.json["request_id"]
    job = Job.fetch(request_id, connection=services.jobs.connection)
    services.jobs.remove(job)
    job.set_status("failed")  # as RQ leaves a job whose failure callback never ran
    poll = client.simulate_get(resp.json["poll"], headers=auth(key))
    assert poll.status_code == 500 and poll.json["refunded"] is True, poll.text
    assert balance(client, key) == 500


def test_an_l402_payer_asks_without_a_key_and_alone_reads_its_result(client, services, settings, monkeypatch):
    from tests.api.test_l402 import challenge, pay

    monkeypatch.setattr(settings, "ask_window_quick_s", 0)
    addr = "10.7.7.7"
    refused = client.simulate_post(ASK, json=QUESTION, remote_addr=addr)
    assert refused.status_code == 402 and refused.json["error"]["l402"]["amount_sats"] == 200
    mac, invoice = challenge(refused)
    credential = {"Authorization": f"L402 {mac}:{pay(invoice)}"}
    queued = client.simulate_post(ASK, json=QUESTION, headers=credential, remote_addr=addr)
    assert queued.status_code == 202, queued.text
    burst(settings)
    mine = client.simulate_get(queued.json["poll"], headers=credential, remote_addr=addr)
    assert mine.status_code == 200 and mine.json["_meta"]["paid_with"] == "l402", mine.text
    assert mine.json["_meta"]["charged_sats"] == 200 and mine.json["supporting_data"]
    # the same address without the token, or another paid token: as if the request did not exist
    other_mac, other_invoice = challenge(client.simulate_post(ASK, json=QUESTION, remote_addr="10.7.7.8"))
    other = {"Authorization": f"L402 {other_mac}:{pay(other_invoice)}"}
    for headers in ({}, other):
        resp = client.simulate_get(queued.json["poll"], headers=headers, remote_addr=addr)
        assert resp.status_code == 404 and resp.json["error"]["code"] == "unknown_request", resp.text


def test_a_running_job_whose_lease_lapsed_is_refunded_by_the_poll(client, services, settings, monkeypatch):
    """As when the whole worker running it is SIGKILLed (tests/e2e/test_synthesis_e2e.py): started, then nothing
    renews its lease; the poll fails and refunds it within the lease, not after RQ's 90 s heartbeat."""
    import asyncio

    import redis.asyncio as aioredis

    from warehouse.synthesis_jobs import SynthesisJobs

    monkeypatch.setattr(settings, "ask_window_quick_s", 0)
    key = funded(client, 500)
    resp = client.simulate_post(ASK, headers=auth(key), json=QUESTION)
    request_id = resp.json["request_id"]

    async def start_and_die():
        jobs = SynthesisJobs(aioredis.Redis.from_url(settings.effective_redis_url), 60)
        assert await jobs.started(request_id, 0.2)  # what a worker does first; then it is gone
        await jobs.redis.aclose()

    asyncio.run(start_and_die())
    assert client.simulate_get(resp.json["poll"], headers=auth(key)).status_code == 202  # the lease still holds
    time.sleep(0.3)
    poll = client.simulate_get(resp.json["poll"], headers=auth(key))
    assert poll.status_code == 500 and poll.json["refunded"] is True, poll.text
    assert "stopped before it finished" in poll.json["error"]["message"]
    assert entries(services, request_id) == [("query", -200), ("refund", 200)] and balance(client, key) == 500
