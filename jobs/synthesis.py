"""The RQ jobs of synthesis (ask, content) and what happens when one fails or is lost.

The API charged the request once, wrote its record (warehouse/synthesis_jobs.py) and enqueued
`run_synthesis(request_id)` with the request id as the RQ job id, a Retry and `on_job_failure` as the failure
callback. The job reads its parameters from the record, gathers the published figures through a
`RedisPublishedReader` and writes the answer to the record, which wakes the waiting request.

A failure is refunded exactly once, and only when no RQ retry remains: RQ runs the failure callback before it
decides to retry (rq/worker/base.py `_finalize_failure`, rq/registry.py `StartedJobRegistry.cleanup` for a job
abandoned by a dead worker), with `retries_left` not yet decremented; a work horse killed mid-job gets no failure
callback, so the worker entry passes `on_horse_killed` as its `work_horse_killed_handler`. The poll route
reconciles whatever slipped through all of these (api/synthesis_queries.py). Whoever refunds takes the job's
refund mark first (SET NX): a second path that notices the same failure finds it taken and refunds nothing."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TypeVar

import redis
import redis.asyncio as aioredis
from rq.job import Job

from api.ticker_modules import TickerComputer
from charging.attempt import Attempt
from charging.service import Charging
from intel.content.writer import generate_piece
from intel.providers.factory import make_provider
from intel.registry import modules
from intel.synthesis.answer import answer_question
from jobs.published_reader import RedisPublishedReader
from marketintel.chart_files import ChartFiles
from marketintel.llm import engine_from_settings
from marketintel.settings import Settings, get_settings
from warehouse.synthesis_jobs import JobRecord, SynthesisJobs

log = logging.getLogger(__name__)
T = TypeVar("T")
_tickers: dict[str, TickerComputer] = {}  # per settings: the provider (and its input frames) outlive one job


def warm(settings: Settings) -> None:
    """Build what every job needs before the worker forks its work horses: the module registry and the ticker
    computer's provider (the `auto` source probes the live sources once, not per job)."""
    modules()
    ticker_computer(settings)


def ticker_computer(settings: Settings) -> TickerComputer:
    key = settings.model_dump_json()
    if key not in _tickers:
        _tickers[key] = TickerComputer(make_provider(settings))
    return _tickers[key]


def chart_files(settings: Settings) -> ChartFiles:
    return ChartFiles(settings.home / "charts" / "newsletter")


def run_synthesis(request_id: str) -> None:
    """The RQ job: compute the record's answer and write it (a job whose record has ended or expired does
    nothing: its request was already answered, or failed and refunded)."""
    settings = get_settings()
    record = _with_jobs(settings, lambda jobs: _start(jobs, request_id))
    if record is None:
        log.info("synthesis %s: ended or expired before it started; nothing to do", request_id)
        return
    result = compute(record, settings)
    if not _with_jobs(settings, lambda jobs: jobs.finish(request_id, result)):
        log.warning("synthesis %s: answered after it had ended; the answer is dropped", request_id)


async def _start(jobs: SynthesisJobs, request_id: str) -> JobRecord | None:
    return await jobs.get(request_id) if await jobs.started(request_id) else None


def compute(record: JobRecord, settings: Settings) -> dict:
    """The answer or piece for the record's parameters, from the published copies as of the request's clock."""
    params = record.params
    now = datetime.fromisoformat(params["now"])
    reader = RedisPublishedReader(redis.Redis.from_url(settings.effective_redis_url), modules(),
                                  ticker_computer(settings), now)
    try:
        if record.kind == "ask":
            return answer_question(params["question"], params["depth"], reader, engine_from_settings(settings), now)
        charts = chart_files(settings)
        piece = generate_piece(params["content_type"], params.get("topic"), params.get("ticker"), reader, now, charts)
        # old charts go after each piece: the folder holds what the retention promises, whatever the traffic
        charts.prune(settings.chart_retention_hours * 3600)
        return piece
    finally:
        reader.client.close()


# --- failures ---------------------------------------------------------------------------------------------------

def on_job_failure(job: Job, connection, exc_type, exc_value, traceback) -> None:
    """RQ's failure callback (also run for a job abandoned by a dead worker, with AbandonedJobError)."""
    abandoned = exc_type is not None and exc_type.__name__ == "AbandonedJobError"
    why = ("the worker running it stopped before it finished" if abandoned
           else f"it raised {exc_type.__name__ if exc_type else 'an error'}")
    ended(job, why)


def on_horse_killed(job: Job, retpid, ret_val, rusage) -> None:
    """The worker's `work_horse_killed_handler`: RQ runs no failure callback for a work horse killed mid-job."""
    if job.func_name == f"{__name__}.run_synthesis":
        ended(job, f"the worker process running it was killed (wait status {ret_val})")


def ended(job: Job, why: str) -> None:
    """One attempt of the job failed: queued again when RQ retries it, else failed and refunded."""
    settings = get_settings()
    error = {"code": "synthesis_failed", "message": f"The synthesis job failed: {why}."}
    if job.retries_left:  # RQ retries after this callback (retries_left is decremented then)
        log.warning("synthesis %s: %s; RQ retries it (%s left)", job.id, why, job.retries_left)
        _with_jobs(settings, lambda jobs: jobs.requeued(job.id, error))
        return
    log.warning("synthesis %s: %s; no retry left: failed and refunded", job.id, why)
    _with_jobs(settings, lambda jobs: _refund_with_own_charging(settings, jobs, job.id, error))


async def _refund_with_own_charging(settings: Settings, jobs: SynthesisJobs, request_id: str, error: dict) -> bool:
    charging = Charging.from_settings(settings)
    try:
        return await fail_and_refund(jobs, charging, request_id, error)
    finally:
        await charging.money.aclose()
        await charging.allowance.redis.aclose()


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


def _with_jobs(settings: Settings, work: Callable[[SynthesisJobs], Awaitable[T]]) -> T:
    """Run `work` on the job records with a client of its own (a job or callback runs outside any event loop)."""
    async def run() -> T:
        client = aioredis.Redis.from_url(settings.effective_redis_url)
        try:
            return await work(SynthesisJobs(client, settings.synthesis_result_ttl_s))
        finally:
            await client.aclose()

    return asyncio.run(run())
