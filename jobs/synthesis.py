"""The RQ job of synthesis (ask, content).

The API charged the request once, wrote its record (warehouse/synthesis_jobs.py) and enqueued
`run_synthesis(request_id)` with the request id as the RQ job id, a Retry and `on_job_failure` as the failure
callback. The job reads its parameters from the record, gathers the published figures through a
`RedisPublishedReader` and writes the answer to the record, which wakes the waiting request.

A failure or a lost job is refunded by jobs/synthesis_failures.py."""
from __future__ import annotations

import logging
import threading
from datetime import datetime

import redis

from intel.content.writer import generate_piece
from intel.providers.factory import make_provider
from intel.registry import modules
from intel.synthesis.answer import answer_question
from intel.ticker_payloads import TickerComputer
from jobs.published_reader import RedisPublishedReader
from jobs.synthesis_failures import with_jobs
from marketintel.chart_files import ChartFiles
from marketintel.llm import engine_from_settings
from marketintel.settings import Settings, get_settings
from warehouse import keys
from warehouse.synthesis_jobs import JobRecord, SynthesisJobs

log = logging.getLogger(__name__)
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


def run_synthesis(request_id: str) -> None:
    """The RQ job: compute the record's answer and write it (a job whose record has ended or expired does
    nothing: its request was already answered, or failed and refunded)."""
    settings = get_settings()
    record = with_jobs(settings, lambda jobs: _start(jobs, request_id, settings.synthesis_lease_s))
    if record is None:
        log.info("synthesis %s: ended or expired before it started; nothing to do", request_id)
        return
    with Lease(settings, request_id):
        result = compute(record, settings)
        if not with_jobs(settings, lambda jobs: jobs.finish(request_id, result)):
            log.warning("synthesis %s: answered after it had ended; the answer is dropped", request_id)


async def _start(jobs: SynthesisJobs, request_id: str, lease_s: float) -> JobRecord | None:
    return await jobs.get(request_id) if await jobs.started(request_id, lease_s) else None


class Lease:
    """Renews the running job's lease from a thread of the work horse, every third of its length, until the job
    ends (the key then lapses by itself). A killed worker renews nothing: the poll sees the lapse in seconds."""

    def __init__(self, settings: Settings, request_id: str):
        self.client = redis.Redis.from_url(settings.effective_redis_url)
        self.key, self.lease_ms = keys.synthesis_lease(request_id), int(settings.synthesis_lease_s * 1000)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._renew, name=f"lease-{request_id}", daemon=True)

    def __enter__(self) -> Lease:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self.thread.join()
        self.client.close()

    def _renew(self) -> None:
        while not self.stopped.wait(self.lease_ms / 3000):
            try:
                self.client.set(self.key, "1", px=self.lease_ms)
            except redis.RedisError:  # the next round tries again; a lapse only costs this job a refund
                log.warning("synthesis lease %s: renewal failed", self.key, exc_info=True)


def compute(record: JobRecord, settings: Settings) -> dict:
    """The answer or piece for the record's parameters, from the published copies as of the request's clock."""
    params = record.params
    now = datetime.fromisoformat(params["now"])
    reader = RedisPublishedReader(redis.Redis.from_url(settings.effective_redis_url), modules(),
                                  ticker_computer(settings), now)
    try:
        if record.kind == "ask":
            return answer_question(params["question"], params["depth"], reader, engine_from_settings(settings), now)
        charts = ChartFiles.from_settings(settings)
        piece = generate_piece(params["content_type"], params.get("topic"), params.get("ticker"), reader, now, charts)
        # old charts go after each piece: the folder holds what the retention promises, whatever the traffic
        charts.prune_expired(settings)
        return piece
    finally:
        reader.client.close()
