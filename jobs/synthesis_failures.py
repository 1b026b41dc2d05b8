"""When a synthesis job fails or is lost: failed and refunded exactly once, and only when no RQ retry remains.

RQ runs the failure callback before it decides to retry (rq/worker/base.py `_finalize_failure`, rq/registry.py
`StartedJobRegistry.cleanup` for a job abandoned by a dead worker), with `retries_left` not yet decremented; a work
horse killed mid-job gets no failure callback, so the worker entry passes `on_horse_killed` as its
`work_horse_killed_handler`. The poll route reconciles whatever slipped through all of these
(api/synthesis_queries.py), including a running job whose lease lapsed because its whole worker was killed
(jobs/synthesis.py `Lease`; RQ itself sees that only when the job's heartbeat runs out, about 90 s). Whoever refunds
takes the job's refund mark first (SET NX): a second path that notices the same failure finds it taken and refunds
nothing. Kept apart from the job itself so that the API, which calls `fail_and_refund`, does not import the
synthesis and chart code."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import redis
import redis.asyncio as aioredis
from rq import Queue
from rq.job import Job

from charging.attempt import Attempt
from charging.service import Charging
from jobs.queues import QUEUE
from marketintel.settings import Settings, get_settings
from warehouse.synthesis_jobs import RUNNING, JobRecord, SynthesisJobs

log = logging.getLogger(__name__)
T = TypeVar("T")
JOB_FUNCTION = "jobs.synthesis.run_synthesis"  # enqueued by name: the API never imports the job's code


def on_job_failure(job: Job, connection, exc_type, exc_value, traceback) -> None:
    """RQ's failure callback (also run for a job abandoned by a dead worker, with AbandonedJobError)."""
    abandoned = exc_type is not None and exc_type.__name__ == "AbandonedJobError"
    why = ("the worker running it stopped before it finished" if abandoned
           else f"it raised {exc_type.__name__ if exc_type else 'an error'}")
    ended(job, why)


def on_horse_killed(job: Job, retpid, ret_val, rusage) -> None:
    """The worker's `work_horse_killed_handler`: RQ runs no failure callback for a work horse killed mid-job."""
    if job.func_name == JOB_FUNCTION:
        ended(job, f"the worker process running it was killed (wait status {ret_val})")


def ended(job: Job, why: str) -> None:
    """One attempt of the job failed: queued again when RQ retries it, else failed and refunded."""
    settings = get_settings()
    error = {"code": "synthesis_failed", "message": f"The synthesis job failed: {why}."}
    if job.retries_left:  # RQ retries after this callback (retries_left is decremented then)
        log.warning("synthesis %s: %s; RQ retries it (%s left)", job.id, why, job.retries_left)
        with_jobs(settings, lambda jobs: jobs.requeued(job.id, error))
        return
    log.warning("synthesis %s: %s; no retry left: failed and refunded", job.id, why)
    with_jobs(settings, lambda jobs: _refund_with_own_charging(settings, jobs, job.id, error))


async def _refund_with_own_charging(settings: Settings, jobs: SynthesisJobs, request_id: str, error: dict) -> bool:
    charging = Charging.from_settings(settings)
    try:
        return await fail_and_refund(jobs, charging, request_id, error)
    finally:
        await charging.money.aclose()
        await charging.allowance.redis.aclose()


LAPSED = {"code": "synthesis_failed", "message": "The synthesis job failed: the worker running it stopped before it "
          "finished."}


async def refund_if_lapsed(jobs: SynthesisJobs, charging: Charging, record: JobRecord) -> bool:
    """Fail and refund a job that is running by its record while no process renews its lease (its worker was
    killed); True when it did."""
    if record.status != RUNNING or await jobs.lease_held(record.request_id):
        return False
    return await fail_and_refund(jobs, charging, record.request_id, LAPSED)


def sweep_lapsed(settings: Settings) -> int:
    """The sweeper's pass (`python -m jobs.webhooks`, every few seconds) over the jobs RQ counts as started: each
    whose lease lapsed is failed and refunded, whether or not anyone polls for it. How many."""
    started = Queue(QUEUE, connection=redis.Redis.from_url(settings.effective_redis_url)).started_job_registry
    request_ids = started.get_job_ids()
    if not request_ids:
        return 0

    async def sweep(jobs: SynthesisJobs) -> int:
        charging, refunded = Charging.from_settings(settings), 0
        try:
            for request_id in request_ids:
                record = await jobs.get(request_id)  # None: not a synthesis job (a delivery), or expired
                if record is not None and await refund_if_lapsed(jobs, charging, record):
                    refunded += 1
        finally:
            await charging.money.aclose()
            await charging.allowance.redis.aclose()
        return refunded

    return with_jobs(settings, sweep)


async def fail_and_refund(jobs: SynthesisJobs, charging: Charging, request_id: str, error: dict) -> bool:
    """Fail the job and give its charge back, exactly once whoever calls; False when it had answered (or its
    record expired): nothing to refund."""
    if not await jobs.fail(request_id, error):
        return False
    record = await jobs.get(request_id)
    if record is None:
        return False
    if await jobs.claim_refund(request_id):
        await charging.undo(Attempt.from_record(record.attempt, charging.prices))  # shielded, every step tried
        await jobs.refunded(request_id, True)
    return True


def with_jobs(settings: Settings, work: Callable[[SynthesisJobs], Awaitable[T]]) -> T:
    """Run `work` on the job records with a client of its own (a job or callback runs outside any event loop)."""
    async def run() -> T:
        client = aioredis.Redis.from_url(settings.effective_redis_url)
        try:
            return await work(SynthesisJobs(client, settings.synthesis_result_ttl_s))
        finally:
            await client.aclose()

    return asyncio.run(run())
