"""The Redis record of synthesis jobs on the embedded Redis: a job ends once, the refund mark is taken once, a
waiting request wakes on the end (and so does a second one), and an Idempotency-Key stands for one request id."""
from __future__ import annotations

import asyncio
import time

import pytest
import redis.asyncio as aioredis

from warehouse import keys
from warehouse.synthesis_jobs import DONE, FAILED, QUEUED, RUNNING, JobRecord, SynthesisJobs

TTL_S = 60


def record(request_id: str = "req-00000001") -> JobRecord:
    return JobRecord(request_id, "ask", {"question": "Is the curve inverted?", "depth": "quick", "now": "2026-11-20"},
                     "a:agent-1", None, {"request_id": request_id, "debited": True}, {"price_sats": 200,
                                                                                       "charged_sats": 200})


def run(redis_url: str, work):
    async def main():
        client = aioredis.Redis.from_url(redis_url)
        try:
            return await work(SynthesisJobs(client, TTL_S), client)
        finally:
            await client.aclose()

    return asyncio.run(main())


def test_a_record_round_trips_and_expires_with_the_result_ttl(redis_url):
    async def work(jobs, client):
        await jobs.create(record())
        stored = await jobs.get("req-00000001")
        return stored, await client.ttl(keys.synthesis_job("req-00000001"))

    stored, ttl = run(redis_url, work)
    assert (stored.params, stored.owner, stored.status, stored.kind) == (record().params, "a:agent-1", QUEUED, "ask")
    assert stored.charge == {"price_sats": 200, "charged_sats": 200} and stored.tries == 0
    assert 0 < ttl <= TTL_S


def test_a_job_ends_once_whichever_end_comes_first(redis_url):
    async def work(jobs, client):
        await jobs.create(record())
        assert await jobs.started("req-00000001", 5)
        assert (await jobs.get("req-00000001")).status == RUNNING
        assert await jobs.fail("req-00000001", {"code": "synthesis_failed", "message": "boom"})
        late = await jobs.finish("req-00000001", {"answer": "too late"})  # a late worker cannot overwrite it
        again = await jobs.fail("req-00000001", {"code": "other", "message": "second"})
        restarted = await jobs.started("req-00000001", 5)
        return late, again, restarted, await jobs.get("req-00000001")

    late, again, restarted, stored = run(redis_url, work)
    assert (late, again, restarted) == (False, True, False)
    assert stored.status == FAILED and stored.result is None and stored.error["message"] == "boom"


def test_a_finished_job_cannot_be_failed(redis_url):
    async def work(jobs, client):
        await jobs.create(record())
        assert await jobs.finish("req-00000001", {"answer": "yes"})
        return await jobs.fail("req-00000001", {"code": "x", "message": "y"}), await jobs.get("req-00000001")

    failed, stored = run(redis_url, work)
    assert failed is False and stored.status == DONE and stored.result == {"answer": "yes"}


def test_the_refund_mark_is_taken_once(redis_url):
    async def work(jobs, client):
        return [await jobs.claim_refund("req-00000001") for _ in range(3)]

    assert run(redis_url, work) == [True, False, False]


def test_waiters_wake_on_the_end_and_a_second_waiter_wakes_too(redis_url):
    async def work(jobs, client):
        await jobs.create(record())

        async def end_soon():
            await asyncio.sleep(0.2)
            await jobs.finish("req-00000001", {"answer": "yes"})

        began = time.monotonic()
        first, second, _ = await asyncio.gather(jobs.wait("req-00000001", 10), jobs.wait("req-00000001", 10),
                                                end_soon())
        return first, second, time.monotonic() - began

    first, second, waited = run(redis_url, work)
    assert first.status == second.status == DONE
    assert waited < 5  # woken by the end, not by the window


def test_a_wait_without_an_end_returns_the_record_after_the_window(redis_url):
    async def work(jobs, client):
        await jobs.create(record())
        began = time.monotonic()
        stored = await jobs.wait("req-00000001", 0.3)
        return stored, time.monotonic() - began

    stored, waited = run(redis_url, work)
    assert stored.status == QUEUED and 0.25 <= waited < 3


def test_a_failure_is_announced_once_its_refund_is_known(redis_url):
    async def work(jobs, client):
        await jobs.create(record())
        await jobs.fail("req-00000001", {"code": "synthesis_failed", "message": "boom"})
        silent = await jobs.wait("req-00000001", 0.2)  # failed, refund not settled: not announced yet
        await jobs.refunded("req-00000001", True)
        return silent, await jobs.wait("req-00000001", 5)

    silent, announced = run(redis_url, work)
    assert silent.status == FAILED and not silent.refunded
    assert announced.refunded


@pytest.mark.parametrize("key", ["order-42", "b3c1d6e0-7a8f-4c4e-9f43-2f2b7f1e9a10"])
def test_an_idempotency_key_stands_for_its_first_request_until_released(redis_url, key):
    async def work(jobs, client):
        first = await jobs.claim_idempotency("a:agent-1", key, "req-first")
        repeat = await jobs.claim_idempotency("a:agent-1", key, "req-second")
        other_owner = await jobs.claim_idempotency("a:agent-2", key, "req-third")
        await jobs.release_idempotency("a:agent-1", key, "req-second")  # not its request: kept
        kept = await jobs.claim_idempotency("a:agent-1", key, "req-fourth")
        await jobs.release_idempotency("a:agent-1", key, "req-first")
        freed = await jobs.claim_idempotency("a:agent-1", key, "req-fifth")
        stored = [k.decode() for k in await client.keys(keys.synthesis_idempotency("*", "*"))]
        return first, repeat, other_owner, kept, freed, stored

    first, repeat, other_owner, kept, freed, stored = run(redis_url, work)
    assert (first, repeat, other_owner, kept, freed) == (None, "req-first", None, "req-first", None)
    assert all(key not in k for k in stored)  # Redis holds the key's hash, not the key


def test_a_start_takes_the_lease_that_says_the_job_is_being_worked_on(redis_url):
    async def work(jobs, client):
        await jobs.create(record())
        before = await jobs.lease_held("req-00000001")
        await jobs.started("req-00000001", 0.3)
        held, ttl_ms = await jobs.lease_held("req-00000001"), await client.pttl(keys.synthesis_lease("req-00000001"))
        await asyncio.sleep(0.4)  # nobody renews it: the worker is gone
        return before, held, ttl_ms, await jobs.lease_held("req-00000001")

    before, held, ttl_ms, after = run(redis_url, work)
    assert (before, held, after) == (False, True, False) and 0 < ttl_ms <= 300
