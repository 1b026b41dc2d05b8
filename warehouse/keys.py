"""Every Redis key the service uses, laid out in one place (prefix `mi`). Redis holds only what can be
rebuilt: the serving cache, operational status, request metrics, rate windows, free-allowance counts, open
402 challenges, the last payload each caller saw, and the usage queue.

    mi:module:<name>:full|compact|prompt|meta     serving cache (warehouse/cache.py)
    mi:modules                                    set of published module names
    mi:pulse:full|meta                            the pulse
    mi:product:<name>:full|meta                   a derived product: regime, parallels, predictions, ...
    mi:ticker:<module>:<TICKER>:<closed day>      a ticker module computed on demand (api/ticker_modules.py)
    mi:status:sources|ingest|freshness            operational status (warehouse/status.py)
    mi:apikey:<sha256 of the key>                 the key's agent, or a tombstone once rotated (api/key_directory.py)
    mi:metrics:m:<epoch minute>, mi:metrics:workers   request metrics (api/metrics.py)
    mi:rate:...                                   moving windows of the `limits` library (api/ratelimit.py)
    mi:free:<market day>:<caller>:<item>          attempts at an item today (charging/allowance.py)
    mi:challenge:<invoice|l402>:<caller>:<item>   the open 402 challenge reused for a caller (charging/invoices.py)
    mi:seen:<caller>:<module>:<ticker>            the last full payload a caller was served (agent-format deltas)
    mi:usage:events, mi:usage:drain-gate          usage events queued for SQL (jobs/usage.py)
    mi:events                                     the event stream: ids <seq>-0, the SSE ids (warehouse/events.py)
    mi:events:scanner                             the scanner's status, served by GET /api/v1/events/scanner
    mi:sse:{conn}:caller:<caller>, mi:sse:{conn}:all   open event streams per caller and in all (SSE_SLOTS)
    mi:synthesis:job:<request id>                 a synthesis job's record: owner, charge, params, status, result
    mi:synthesis:done:<request id>                its end, for a waiting request's BLPOP (warehouse/synthesis_jobs.py)
    mi:synthesis:refund:<request id>              taken once (SET NX) by whoever refunds a failed or lost job
    mi:synthesis:lease:<request id>               held (renewed) by the process running the job; gone: it died
    mi:synthesis:idem:<owner>:<sha256 of the key> the request id an Idempotency-Key stands for
    mi:console:session:<sha256 of the session id> a console sign-in: the key's hash and the forms' token
"""
from __future__ import annotations

from datetime import date

PREFIX = "mi"

MODULES = f"{PREFIX}:modules"
STATUS_SOURCES = f"{PREFIX}:status:sources"
STATUS_INGEST = f"{PREFIX}:status:ingest"
STATUS_FRESHNESS = f"{PREFIX}:status:freshness"
# module -> JSON {as_of, reason, series: {id: first stored date or null}}: modules the last run could not compute
STATUS_UNCOMPUTED = f"{PREFIX}:status:uncomputed"
METRICS = f"{PREFIX}:metrics"
METRICS_WORKERS = f"{METRICS}:workers"
RATE = f"{PREFIX}:rate"
USAGE_STREAM = f"{PREFIX}:usage:events"
USAGE_DRAIN_GATE = f"{PREFIX}:usage:drain-gate"
EVENTS_STREAM = f"{PREFIX}:events"
SSE_SLOTS = f"{PREFIX}:sse:{{conn}}"  # the hash tag keeps a caller's set and the total in one cluster slot
SCANNER_STATUS = f"{PREFIX}:events:scanner"


def module(name: str, part: str, prefix: str = PREFIX) -> str:
    return f"{prefix}:module:{name}:{part}"


def modules(prefix: str = PREFIX) -> str:
    return f"{prefix}:modules"


def pulse(part: str, prefix: str = PREFIX) -> str:
    return f"{prefix}:pulse:{part}"


def product(name: str, part: str, prefix: str = PREFIX) -> str:
    return f"{prefix}:product:{name}:{part}"


def ticker_payload(module_name: str, ticker: str, closed: date) -> str:
    return f"{PREFIX}:ticker:{module_name}:{ticker}:{closed.isoformat()}"


TICKER_PAYLOAD_TTL_S = 120  # a ticker module's cached copy: recomputed after this, at most once per window


def ticker_request(request) -> str:
    """The cached copy of an `intel.ticker_payloads.TickerRequest`: its module and ticker on its last closed day."""
    return ticker_payload(request.module.name, request.ticker, request.closed)


def api_key(key_hash: str) -> str:
    return f"{PREFIX}:apikey:{key_hash}"


def metrics_minute(minute: int) -> str:
    return f"{METRICS}:m:{minute}"


def free_uses(day: date, caller_id: str, item_key: str) -> str:
    return f"{PREFIX}:free:{day.isoformat()}:{caller_id}:{item_key}"


def challenge(kind: str, caller_id: str, item_key: str) -> str:
    return f"{PREFIX}:challenge:{kind}:{caller_id}:{item_key}"


def seen(caller_id: str, module_name: str, ticker: str | None) -> str:
    return f"{PREFIX}:seen:{caller_id}:{module_name}:{ticker or ''}"


def synthesis_job(request_id: str) -> str:
    return f"{PREFIX}:synthesis:job:{request_id}"


def synthesis_done(request_id: str) -> str:
    return f"{PREFIX}:synthesis:done:{request_id}"


def synthesis_refund(request_id: str) -> str:
    return f"{PREFIX}:synthesis:refund:{request_id}"


def synthesis_lease(request_id: str) -> str:
    return f"{PREFIX}:synthesis:lease:{request_id}"


def synthesis_idempotency(owner: str, key_hash: str) -> str:
    return f"{PREFIX}:synthesis:idem:{owner}:{key_hash}"


def past_payload(module: str, moment: str, source: str) -> str:
    """A module's answer as of a past moment (api/past_answers.py), per data source."""
    return f"{PREFIX}:past:{source}:{module}:{moment}"


def console_session(id_hash: str) -> str:
    return f"{PREFIX}:console:session:{id_hash}"
