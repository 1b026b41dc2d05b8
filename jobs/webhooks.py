"""Webhook deliveries: RQ jobs over the SQL outbox (warehouse/ledger/webhooks.py), signed per Standard Webhooks.

- `enqueue_deliveries(events)`: the scanner calls it after appending events; one outbox row per receiving target
  (webhook subscriptions, alert callbacks, alert packages' webhook and chat channels), then one `deliver_batch` job
  per BATCH_SIZE rows: a fork per job, not per delivery, is what lets 1,000 deliveries of one event go out in
  seconds.
- `deliver_batch(due)`: claims the batch's attempts in one transaction, sends them at most CONCURRENCY at a time
  (threads sharing one connection pool), and records the outcomes in one transaction; each row keeps its own
  retry time, so a failed row is retried alone. `deliver(delivery_id, attempt)` is a batch of one.
- One attempt: signs the payload (`standardwebhooks`: `webhook-id` is the outbox row's id, the same on every
  attempt; `webhook-timestamp` is the wall time of this attempt; a chat body is sent unsigned), checks the
  callback's host again (marketintel/ssrf.py) and POSTs to the address it checked, with `webhook_timeout_s` per
  phase, no redirects and no proxy from the environment, reading at most BODY_CAP bytes of the answer. 2xx is
  delivered. Timeouts, connection errors, 408, 429 and 5xx are retried: after `Retry-After` when the receiver sends
  one, else after BACKOFF_FIRST doubling per attempt up to BACKOFF_MAX. Any other status (other 4xx, a redirect)
  and a refused address are final.
- `sweep()`: queues again every pending delivery that is due: a retry whose time has come, a job lost before it
  ran (QUEUE_LEASE), or a worker killed mid-send (its claim's lease, `send_lease`). The worker runs RQ without the
  scheduler, so retries wait in the outbox's `next_attempt_at` rather than in `enqueue_in`. Run it every
  SWEEP_EVERY_S seconds with `python -m jobs.webhooks` (a process beside `python -m jobs.worker`; several may run,
  the outbox hands each due row to one of them).
"""
from __future__ import annotations

import email.utils
import logging
import math
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from urllib.parse import urlsplit

import httpx
from rq import Queue
from standardwebhooks import Webhook

from jobs import balance, synthesis_failures
from jobs.queues import job_queue
from marketintel import prometheus
from marketintel.logs import configure
from marketintel.settings import get_settings
from marketintel.ssrf import IPAddress, RefusedURL, Unresolvable, checked_target
from warehouse.ledger import make_engine
from warehouse.ledger.webhooks import DISABLE_AFTER, QUEUE_LEASE, AttemptResult, Webhooks

log = logging.getLogger(__name__)

BACKOFF_FIRST = timedelta(seconds=30)
BACKOFF_MAX = timedelta(hours=1)
BODY_CAP = 4096  # bytes of a receiver's answer read; the rest is dropped (the status is all we use)
SWEEP_EVERY_S = 10
USER_AGENT = "marketintel-webhooks/1"
BATCH_SIZE = 200  # deliveries per job
CONCURRENCY = 50  # requests in flight per job (within httpx's default pool of 100 connections)


def send_lease(timeout_s: float) -> timedelta:
    """How long a claimed attempt may take before the sweeper presumes its worker dead: connect, write and read
    each get the timeout, plus a margin for signing and writing the outcome."""
    return timedelta(seconds=3 * timeout_s + 2)


def batch_lease(timeout_s: float, size: int) -> timedelta:
    """A claimed batch's lease: one send lease per round of CONCURRENCY requests."""
    return send_lease(timeout_s) * math.ceil(size / CONCURRENCY)


def backoff(attempts: int) -> timedelta:
    """The wait after the `attempts`-th failed attempt: 30 s, 1 min, 2 min, ... at most 1 h."""
    return min(BACKOFF_FIRST * 2 ** max(attempts - 1, 0), BACKOFF_MAX)


def retry_after(value: str | None, now: datetime) -> timedelta | None:
    """A `Retry-After` header (seconds or an HTTP date) as a wait, at most DISABLE_AFTER; None when absent or bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        wait = timedelta(seconds=int(value))
    else:
        try:
            wait = email.utils.parsedate_to_datetime(value) - now
        except (TypeError, ValueError):
            return None
    return min(max(wait, timedelta(0)), DISABLE_AFTER)


def classify(status: int, retry_after_header: str | None, attempts: int, latency_ms: int, now: datetime
             ) -> AttemptResult:
    """What an HTTP answer means for the delivery."""
    seen = {"status_code": status, "latency_ms": latency_ms}
    if 200 <= status < 300:
        return AttemptResult(delivered=True, **seen)
    if status in (408, 429) or status >= 500:
        wait = retry_after(retry_after_header, now)
        return AttemptResult(delivered=False, retry_in=backoff(attempts) if wait is None else wait,
                             error=f"HTTP {status}: retried", **seen)
    if 300 <= status < 400:
        return AttemptResult(delivered=False, error=f"HTTP {status}: redirects are not followed", **seen)
    return AttemptResult(delivered=False, error=f"HTTP {status}: not retried", **seen)


class WebhookSender:
    def __init__(self, webhooks: Webhooks, timeout_s: float, allow_private: bool, queue: Queue | None = None):
        self.webhooks = webhooks
        self.timeout_s = timeout_s
        self.allow_private = allow_private
        self.queue = queue
        # trust_env=False: a proxy from the environment would connect on our behalf, past the address checks
        self.client = httpx.Client(timeout=httpx.Timeout(timeout_s), follow_redirects=False, trust_env=False)

    def enqueue(self, events: Iterable[dict]) -> int:
        """Outbox rows for the events, then a job each; how many deliveries."""
        return self._enqueue(self.webhooks.create_deliveries(events, QUEUE_LEASE))

    def sweep(self) -> int:
        """Queue every due delivery again; how many. Also prunes old finished rows."""
        self.webhooks.prune()
        return self._enqueue(self.webhooks.take_due(QUEUE_LEASE))

    def deliver(self, delivery_id: str, attempt: int) -> str:
        """One attempt; the delivery's status after it (`skipped` when another job has this attempt)."""
        return self.deliver_batch([(delivery_id, attempt)])[delivery_id]

    def deliver_batch(self, due: list[tuple[str, int]]) -> dict[str, str]:
        """One attempt of each (delivery id, attempt), sent concurrently; {delivery id: its status after it}."""
        claimed = self.webhooks.claim_many(due, batch_lease(self.timeout_s, len(due)))
        statuses = {delivery_id: "skipped" for delivery_id, _ in due}
        if len(claimed) == 1:
            results = [self.attempt(claimed[0])]
        elif claimed:
            with ThreadPoolExecutor(max_workers=min(CONCURRENCY, len(claimed))) as pool:
                results = list(pool.map(self.attempt, claimed))
        else:
            return statuses
        recorded = self.webhooks.record_many([(d["id"], r) for d, r in zip(claimed, results)])
        for status in recorded.values():  # pending (to be retried), delivered, failed, abandoned
            prometheus.DELIVERY_ATTEMPTS.labels(status).inc()
        return statuses | recorded

    def attempt(self, delivery: dict) -> AttemptResult:
        try:
            target, addresses = checked_target(delivery["callback_url"], self.allow_private)
        except Unresolvable as ex:
            return AttemptResult(delivered=False, retry_in=backoff(delivery["attempts"]), error=str(ex)[:500])
        except RefusedURL as ex:
            return AttemptResult(delivered=False, error=f"refused: {ex}"[:500])
        headers = {"content-type": "application/json", "user-agent": USER_AGENT, "host": target.host_header}
        if delivery["secret"] is not None:  # chat bodies go unsigned: those endpoints verify no signature
            headers |= signature_headers(delivery)
        started = time.perf_counter()
        try:
            status, retry_header = self._post(target, addresses[0], delivery["payload"], headers, started)
        except httpx.TimeoutException:
            return AttemptResult(delivered=False, retry_in=backoff(delivery["attempts"]),
                                 error=f"timeout after {self.timeout_s:g} s", latency_ms=_ms_since(started))
        except httpx.HTTPError as ex:
            return AttemptResult(delivered=False, retry_in=backoff(delivery["attempts"]),
                                 error=f"connection error: {type(ex).__name__}: {ex}"[:500],
                                 latency_ms=_ms_since(started))
        return classify(status, retry_header, delivery["attempts"], _ms_since(started), datetime.now(UTC))

    def _post(self, target, address: IPAddress, payload: str, headers: dict, started: float) -> tuple[int, str | None]:
        """POST to `address` itself (the one checked), naming the host in `Host` and, for https, in SNI and the
        certificate check; returns the status and `Retry-After` once the headers are in (latency ends there)."""
        host = f"[{address}]" if address.version == 6 else str(address)
        pinned = urlsplit(target.url)._replace(netloc=f"{host}:{target.port}").geturl()
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        with self.client.stream("POST", pinned, content=payload.encode(), headers=headers,
                                extensions=extensions) as response:
            read = 0
            for chunk in response.iter_raw():  # raw: a compressed answer is never inflated
                read += len(chunk)
                if read >= BODY_CAP or time.perf_counter() - started > self.timeout_s:
                    break
            return response.status_code, response.headers.get("retry-after")

    def _enqueue(self, due: list[tuple[str, int]]) -> int:
        if due and self.queue is not None:
            batches = [due[start:start + BATCH_SIZE] for start in range(0, len(due), BATCH_SIZE)]
            self.queue.enqueue_many([Queue.prepare_data(deliver_batch, args=(batch,), result_ttl=0,
                                                        description=f"webhooks: {len(batch)} deliveries")
                                     for batch in batches])
        return len(due)


def signature_headers(delivery: dict) -> dict:
    """The Standard Webhooks headers of one attempt."""
    now = datetime.now(UTC)  # wall time: receivers check the signature's timestamp against their clock
    return {"webhook-id": delivery["id"], "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Webhook(delivery["secret"]).sign(delivery["id"], now, delivery["payload"])}


def _ms_since(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)


def _sender() -> WebhookSender:
    settings = get_settings()
    return _sender_for(settings.sqlalchemy_url, settings.webhook_timeout_s, settings.webhook_allow_private,
                       settings.effective_redis_url)


@lru_cache(maxsize=4)  # one per ledger and Redis: a process whose settings change (tests) never writes to the old
def _sender_for(database_url: str, timeout_s: float, allow_private: bool, redis_url: str) -> WebhookSender:
    return WebhookSender(Webhooks(make_engine(database_url)), timeout_s, allow_private, job_queue(redis_url))


# --- the RQ jobs and the sweeper (plain functions, importable by the worker) ---

def enqueue_deliveries(events: list[dict]) -> int:
    """Queue the deliveries of appended events (with their ids) to every receiving subscription; how many."""
    return _sender().enqueue(events)


def deliver(delivery_id: str, attempt: int = 0) -> str:
    """A job of one delivery (the shape queued before batches; kept so such jobs still run)."""
    return _sender().deliver(delivery_id, attempt)


def deliver_batch(due: list[tuple[str, int]]) -> dict[str, str]:
    return _sender().deliver_batch([(delivery_id, attempt) for delivery_id, attempt in due])


def sweep() -> int:
    return _sender().sweep()


def main() -> None:
    """`python -m jobs.webhooks`: every SWEEP_EVERY_S seconds until stopped, queue the due webhook deliveries,
    refund the synthesis jobs whose worker died and settle the low-balance warnings (jobs/balance.py)."""
    configure("webhooks", get_settings().log_format)
    while True:
        try:
            queued = sweep()
            if queued:
                log.info("queued %d due webhook deliveries", queued)
        except Exception:  # a database or Redis hiccup: the next sweep tries again
            log.exception("webhook sweep failed")
        try:  # synthesis jobs whose worker died are refunded even if nobody polls for them
            refunded = synthesis_failures.sweep_lapsed(get_settings())
            if refunded:
                log.info("failed and refunded %d synthesis jobs whose worker stopped", refunded)
        except Exception:
            log.exception("synthesis sweep failed")
        try:  # low-balance warnings whose job was lost, and warnings re-armed by a credit
            warned = balance.sweep()
            if warned:
                log.info("sent %d low-balance warnings", warned)
        except Exception:
            log.exception("low-balance sweep failed")
        time.sleep(SWEEP_EVERY_S)


if __name__ == "__main__":
    main()
