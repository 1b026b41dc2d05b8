"""The synthesis jobs' side on the embedded Redis and a SQLite ledger: the worker's reader reads the published
copies (memoised per job, ticker modules computed as the module route computes them), a work horse killed with a
retry left is queued again, and one killed for good, or abandoned by a dead worker (RQ's StartedJobRegistry
cleanup), is failed and refunded exactly once."""
from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime

import orjson
import pytest
import redis
from rq import Callback, Queue, Retry
from rq.job import Job, JobStatus

from charging.attempt import Attempt, Payer
from charging.service import Charging
from intel.providers.sim import SimProvider
from intel.registry import modules
from intel.synthesis.published import Unavailable
from intel.ticker_payloads import TickerComputer
from jobs.published_reader import RedisPublishedReader
from jobs.queues import QUEUE
from jobs.synthesis import run_synthesis
from jobs.synthesis_failures import on_horse_killed, on_job_failure
from tests.api.conftest import computed_payloads, publish  # noqa: F401 (the session fixture)
from warehouse import keys
from warehouse.ledger import Agents, Invoices, Money, check_consistency, make_engine
from warehouse.synthesis_jobs import JobRecord, SynthesisJobs

NOW = datetime(2026, 11, 20, 21, tzinfo=UTC)  # the evening of the sim payloads' as-of day


@pytest.fixture
def published(settings, request):
    payloads = request.getfixturevalue("computed_payloads")  # tests/api/conftest.py's, imported above
    publish(settings.effective_redis_url, payloads)
    return payloads[0]


def reader(settings) -> RedisPublishedReader:
    return RedisPublishedReader(redis.Redis.from_url(settings.effective_redis_url), modules(),
                                TickerComputer(SimProvider(seed=7)), NOW)


def test_the_reader_serves_the_published_copies_once_per_job(settings, published):
    read = reader(settings)
    assert read.published() == sorted(published)
    vix = read.module("vix")
    assert vix["data"] == orjson.loads(orjson.dumps(published["vix"]["data"]))
    assert read.meta("vix")["simulated"] is True and read.module("no_such_module") is None
    redis.Redis.from_url(settings.effective_redis_url).set(keys.module("vix", "full"), b'{"data": {}}')
    assert read.module("vix") is vix  # a publish landing mid-job does not change what the job quotes
    assert read.product("regime") is None


def test_the_reader_computes_ticker_modules_as_the_route_does_and_shares_their_copy(settings, published):
    read = reader(settings)
    payload = read.ticker_module("technical_analysis", "aapl")
    assert payload["module"] == "technical_analysis" and payload["data"]
    cached = [k.decode() for k in redis.Redis.from_url(settings.effective_redis_url).keys("mi:ticker:*")]
    assert cached == ["mi:ticker:technical_analysis:AAPL:2026-11-20"]  # the module route's own key
    with pytest.raises(Unavailable):
        read.ticker_module("vix", "AAPL")  # not a ticker module


def funded_attempt(settings, request_id: str, price_key: str = "ask:standard") -> tuple[dict, JobRecord]:
    engine = make_engine(settings.sqlalchemy_url)
    agent, _ = Agents(engine).register("job-agent")
    payment_hash = uuid.uuid4().hex * 2
    Invoices(engine).record(payment_hash, "lnbcrt-test", 1000, "credit", expires_at=4_000_000_000,
                            agent_pk=agent["id"])
    Money(engine).credit_topup(agent["id"], payment_hash)

    async def charge() -> tuple[dict, JobRecord]:
        charging = Charging.from_settings(settings)
        attempt = Attempt(Payer.of(agent, "unused"), charging.prices[price_key], request_id)
        paid = await charging.charge(attempt)
        record = JobRecord(request_id, "ask", {"question": "Is the curve inverted?", "depth": "standard",
                                               "now": NOW.isoformat()}, f"a:{agent['agent_id']}", None,
                           attempt.record(), {"price_sats": 500, "charged_sats": paid.charged_sats})
        client = charging.allowance.redis
        await SynthesisJobs(client, settings.synthesis_result_ttl_s).create(record)
        await charging.money.aclose()
        await client.aclose()
        return agent, record

    return asyncio.run(charge())


def enqueue(settings, request_id: str, retries: int) -> Job:
    queue = Queue(QUEUE, connection=redis.Redis.from_url(settings.effective_redis_url))
    return queue.enqueue(run_synthesis, request_id, job_id=request_id, retry=Retry(max=retries) if retries else None,
                         on_failure=Callback(on_job_failure))


def stored(settings, request_id: str) -> JobRecord:
    raw = redis.Redis.from_url(settings.effective_redis_url).hgetall(keys.synthesis_job(request_id))
    return JobRecord.from_fields(raw)


def test_a_killed_work_horse_with_a_retry_left_is_queued_again(settings, published):
    agent, _ = funded_attempt(settings, "req-killed-retry")
    job = enqueue(settings, "req-killed-retry", retries=1)
    on_horse_killed(job, 4242, 9, None)
    record = stored(settings, "req-killed-retry")
    assert record.status == "queued" and "killed" in record.error["message"]
    assert Money(make_engine(settings.sqlalchemy_url)).balance(agent["id"]) == 500  # still charged, no refund


def test_a_killed_work_horse_without_retries_is_failed_and_refunded_once(settings, published):
    agent, _ = funded_attempt(settings, "req-killed-final")
    job = enqueue(settings, "req-killed-final", retries=0)
    on_horse_killed(job, 4242, 9, None)
    on_horse_killed(job, 4242, 9, None)  # noticed twice: refunded once
    record = stored(settings, "req-killed-final")
    assert (record.status, record.refunded) == ("failed", True)
    engine = make_engine(settings.sqlalchemy_url)
    assert Money(engine).balance(agent["id"]) == 1000 and check_consistency(engine) == []


def test_a_job_abandoned_by_a_dead_worker_is_refunded_by_rqs_cleanup(settings, published):
    agent, _ = funded_attempt(settings, "req-abandoned")
    job = enqueue(settings, "req-abandoned", retries=0)
    queue = Queue(QUEUE, connection=job.connection)
    # as a worker leaves it when SIGKILLed mid-job: started, in the started registry, its heartbeat run out
    queue.remove(job)
    job.set_status(JobStatus.STARTED)
    registry = queue.started_job_registry
    job.connection.zadd(registry.key, {f"{job.id}:lost-execution": time.time() - 1})  # {job}:{execution}, expired
    registry.cleanup()
    record = stored(settings, "req-abandoned")
    assert (record.status, record.refunded) == ("failed", True), record
    assert "stopped before it finished" in record.error["message"]
    assert Money(make_engine(settings.sqlalchemy_url)).balance(agent["id"]) == 1000
