"""One HTTP client per live source: timeouts, retries with backoff, a circuit breaker, a request budget.

The breaker and the status shape are ours (a few lines) because the status must match the Redis
`mi:status:sources` contract and be restorable across run processes; the budget uses `limits`.
Every failure becomes a `SourceError`; callers never see a half-parsed body.
"""
from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

import httpx
import orjson
from limits import RateLimitItem, RateLimitItemPerHour
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

T = TypeVar("T")


class SourceError(Exception):
    """A source did not deliver usable data (transport, status, format). Its series keep their old rows."""


class SeriesError(SourceError):
    """The source answered, about one series: it does not have it. Not a failure of the source (its breaker
    counts a success), so one discontinued series cannot cut off the others."""


@dataclass(frozen=True)
class LiveConfig:
    """Every URL is the publisher's own (settings `MI_LIVE_<NAME>_URL`, so tests point them at a local server)."""
    fred_api_url: str = "https://api.stlouisfed.org/fred"
    treasury_url: str = ("https://home.treasury.gov/resource-center/data-chart-center/interest-rates/"
                         "daily-treasury-rates.csv")
    ecb_url: str = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip"
    coinbase_url: str = "https://api.exchange.coinbase.com"
    stooq_url: str = "https://stooq.com/q/d/l/"
    cboe_url: str = "https://cdn.cboe.com/api/global/us_indices/daily_prices"
    frb_url: str = "https://www.federalreserve.gov/datadownload/Output.aspx"
    nyfed_url: str = "https://markets.newyorkfed.org"
    freddiemac_url: str = "https://www.freddiemac.com/pmms/docs/PMMS_history.csv"
    bls_url: str = "https://api.bls.gov/publicAPI/v2/timeseries/data/"
    gold_prices_url: str = "https://raw.githubusercontent.com/datasets/gold-prices/main/data/monthly.csv"
    timeout_s: float = 10.0
    retries: int = 2
    backoff_s: float = 0.5
    breaker_failures: int = 3
    breaker_reset_s: float = 300.0
    request_budget: int = 600
    probe_timeout_s: float = 2.0
    # FRED's published limit is 120 requests a minute per key: requests are paced to stay inside it
    fred_api_requests_per_minute: int = 120
    fred_api_pace_window_s: int = 60  # the window of that pace (a test shortens it to see the pacing at work)
    # optional keyed daily-bar providers: on only when their key is set (keys never in repr or logs)
    tiingo_url: str = "https://api.tiingo.com"
    alphavantage_url: str = "https://www.alphavantage.co"
    tiingo_api_key: str | None = field(default=None, repr=False)
    alphavantage_api_key: str | None = field(default=None, repr=False)
    fred_api_key: str | None = field(default=None, repr=False)
    bls_api_key: str | None = field(default=None, repr=False)

    @classmethod
    def from_settings(cls, settings) -> LiveConfig:
        values = {}
        for name in cls.__dataclass_fields__:
            if name.endswith("_api_key"):  # MI_TIINGO_API_KEY, not MI_LIVE_...; a SecretStr in the settings
                secret = getattr(settings, name, None)
                value = secret.get_secret_value() if hasattr(secret, "get_secret_value") else secret
                values[name] = value.strip() if value and value.strip() else None
            else:
                values[name] = getattr(settings, f"live_{name}")
        return cls(**values)


_SECRET_PARAM = re.compile(r"(?i)\b(token|apikey|api_key|key)=[^&\s'\"]+")


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` with every known secret and every `token=`/`apikey=` query value replaced by `***`."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return _SECRET_PARAM.sub(lambda m: f"{m.group(1)}=***", text)


class _RedactKeys(logging.Filter):
    """httpx logs every request URL at INFO; Alpha Vantage's key travels in the query string."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return True


if not any(isinstance(f, _RedactKeys) for f in logging.getLogger("httpx").filters):
    logging.getLogger("httpx").addFilter(_RedactKeys())


def _iso(epoch: float | None) -> str | None:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds") if epoch else None


class Breaker:
    """closed -> (N consecutive failures) -> open -> (reset_s later, one trial) -> half_open -> closed|open."""

    def __init__(self, threshold: int, reset_s: float) -> None:
        self.threshold, self.reset_s = max(1, threshold), reset_s
        self.state = "closed"
        self.consecutive_failures = 0
        self.opened_at: float | None = None
        self.last_error: str | None = None
        self.last_error_at: float | None = None
        self.last_success_at: float | None = None

    def allow(self) -> bool:
        if self.state == "open" and time.time() - (self.opened_at or 0) >= self.reset_s:
            self.state = "half_open"
        return self.state != "open"

    def success(self) -> None:
        self.state, self.consecutive_failures, self.last_success_at = "closed", 0, time.time()

    def failure(self, error: str) -> None:
        self.consecutive_failures += 1
        self.last_error, self.last_error_at = error, time.time()
        if self.state == "half_open" or self.consecutive_failures >= self.threshold:
            self.state, self.opened_at = "open", time.time()

    def restore(self, status: dict) -> None:
        """Carry the state over from the last run (each Dagster run may be a fresh process). Only a
        breaker that has seen nothing yet in this process takes it."""
        if self.last_error_at or self.last_success_at:
            return
        def epoch(text):
            return datetime.fromisoformat(text).timestamp() if text else None
        self.state = status.get("state", "closed")
        self.consecutive_failures = int(status.get("consecutive_failures", 0))
        self.last_error = status.get("last_error")
        self.last_error_at = epoch(status.get("last_error_at"))
        self.last_success_at = epoch(status.get("last_success_at"))
        self.opened_at = self.last_error_at if self.state != "closed" else None
        if self.state == "half_open":  # the trial never finished: treat as open until the reset passes
            self.state = "open"


class SourceClient:
    """GETs for one source. `call(url, params, parse)` returns `parse(response)` or raises SourceError;
    the breaker counts the outcome of the whole call (retries included, parse errors included)."""

    def __init__(self, name: str, config: LiveConfig, transport: httpx.BaseTransport | None = None,
                 headers: dict[str, str] | None = None, secrets: tuple[str, ...] = (),
                 pace: RateLimitItem | None = None) -> None:
        """`headers` go with every request (an auth header); `secrets` are cut out of every error text;
        `pace`: the publisher's own rate limit, kept by waiting before a request rather than by a 429."""
        self.name, self.config = name, config
        self.secrets = tuple(s for s in secrets if s)
        self.breaker = Breaker(config.breaker_failures, config.breaker_reset_s)
        self._budget = RateLimitItemPerHour(max(1, config.request_budget))
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._pace = pace
        self.paced_s = 0.0  # time spent waiting for the pace, for the status
        self._http = httpx.Client(timeout=config.timeout_s, follow_redirects=True, transport=transport,
                                  headers={"User-Agent": "marketintel/0.1 (+self-hosted)", **(headers or {})})

    def close(self) -> None:
        self._http.close()

    def requests_used(self) -> int:
        return self.config.request_budget - self._limiter.get_window_stats(self._budget, self.name).remaining

    def status(self) -> dict:
        b = self.breaker
        b.allow()  # an open breaker whose reset time passed reports half_open
        return {"state": b.state, "consecutive_failures": b.consecutive_failures, "last_error": b.last_error,
                "last_error_at": _iso(b.last_error_at), "last_success_at": _iso(b.last_success_at),
                "requests_used": self.requests_used(), "request_budget": self.config.request_budget,
                "paced_s": round(self.paced_s, 1)}

    def _wait_for_pace(self) -> None:
        """Sleep until the publisher's window has room (a moving window: at most N in any stretch of its length)."""
        if self._pace is None:
            return
        while not self._limiter.hit(self._pace, self.name, "pace"):
            reset = self._limiter.get_window_stats(self._pace, self.name, "pace").reset_time
            wait = min(max(reset - time.time(), 0.01), float(self._pace.get_expiry()))
            self.paced_s += wait
            time.sleep(wait)

    def call(self, url: str, params: dict | None, parse: Callable[[httpx.Response], T],
             retries: int | None = None, timeout_s: float | None = None, accept: tuple[int, ...] = (),
             json: object = None) -> T:
        """`accept`: 4xx statuses that are answers for `parse` (e.g. a 404 meaning "no such ticker");
        `json`: a body to POST as JSON (the BLS API takes its queries so); without it, a GET."""
        if not self.breaker.allow():
            raise SourceError(f"{self.name}: circuit open after {self.breaker.consecutive_failures} failures "
                              f"(last: {self.breaker.last_error})")
        try:
            result = parse(self._get(url, params, self.config.retries if retries is None else retries,
                                     timeout_s, accept, json))
        except SeriesError as exc:
            self.breaker.success()
            raise SeriesError(redact(str(exc), self.secrets)) from None
        except SourceError as exc:
            message = redact(str(exc), self.secrets)
            if not message.startswith(f"{self.name}: request budget"):  # our limit, not the source's fault
                self.breaker.failure(message)
            if message != str(exc):
                raise SourceError(message) from None
            raise
        except Exception as exc:  # a parser bug or odd body: still a source failure, never a crash
            message = redact(f"{self.name}: {type(exc).__name__}: {exc}", self.secrets)
            self.breaker.failure(message)
            raise SourceError(message) from (None if self.secrets else exc)
        self.breaker.success()
        return result

    def _get(self, url: str, params: dict | None, retries: int, timeout_s: float | None,
             accept: tuple[int, ...] = (), json: object = None) -> httpx.Response:
        error = ""
        for attempt in range(retries + 1):
            if not self._limiter.hit(self._budget, self.name):
                raise SourceError(f"{self.name}: request budget of {self.config.request_budget}/hour used up")
            self._wait_for_pace()
            delay = self.config.backoff_s * 2 ** attempt
            try:
                timeout = timeout_s or self.config.timeout_s
                response = (self._http.get(url, params=params, timeout=timeout) if json is None
                            else self._http.post(url, params=params, json=json, timeout=timeout))
            except httpx.TimeoutException:
                error = f"{self.name}: timeout after {timeout_s or self.config.timeout_s}s"
            except httpx.HTTPError as exc:  # connection refused, reset, truncated transfer, DNS
                error = f"{self.name}: {type(exc).__name__}: {exc}"
            else:
                if response.status_code == 429 or response.status_code >= 500:
                    error = f"{self.name}: HTTP {response.status_code}"
                    delay = max(delay, _retry_after(response))
                elif response.status_code >= 400 and response.status_code not in accept:
                    raise SourceError(f"{self.name}: HTTP {response.status_code}")  # retrying will not help
                else:
                    return response
            if attempt < retries:
                time.sleep(min(delay, 30.0))  # a long Retry-After is the breaker's business, not a sleep's
        raise SourceError(error)


def _retry_after(response: httpx.Response) -> float:
    try:
        return float(response.headers.get("Retry-After", 0))
    except ValueError:
        return 0.0


def text_body(source: str, response: httpx.Response, final_newline: bool = True) -> str:
    """The body of a CSV answer, or SourceError for what must not be parsed as data: an HTML page sent with
    200 (error and consent pages), an empty body, a file cut short (the last line must end in a newline:
    a cut inside the last number would otherwise read as a different number). `final_newline=False` for a
    publisher whose files end without one (Treasury's): its parser must catch a cut itself."""
    if "html" in response.headers.get("content-type", "").lower():
        raise SourceError(f"{source}: HTML answer where CSV was expected")
    text = response.text
    if not text.strip():
        raise SourceError(f"{source}: empty body")
    if text.lstrip()[:1] == "<":
        raise SourceError(f"{source}: HTML/XML answer where CSV was expected")
    if final_newline and not text.endswith("\n"):
        raise SourceError(f"{source}: truncated body (last line incomplete)")
    return text


def json_body(source: str, response: httpx.Response):
    """The decoded body of a JSON answer, or SourceError for an HTML page with 200, an empty body or a
    body that is not JSON (cut short, garbled)."""
    if "html" in response.headers.get("content-type", "").lower():
        raise SourceError(f"{source}: HTML answer where JSON was expected")
    content = response.content.strip()
    if not content:
        raise SourceError(f"{source}: empty body")
    if content[:1] == b"<":
        raise SourceError(f"{source}: HTML/XML answer where JSON was expected")
    try:
        return orjson.loads(content)
    except orjson.JSONDecodeError:
        raise SourceError(f"{source}: body is not JSON (truncated or malformed)") from None


def checked_bar(source: str, day, open_, high, low, close, volume) -> tuple:
    """One daily bar as (date, open, high, low, close, volume) floats, or SourceError when a price is not a
    finite positive number, the close is missing, high < low or the volume is negative."""
    def number(name, value, required=False):
        if value is None and not required:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise SourceError(f"{source}: {day}: {name} is not a number: {str(value)[:40]!r}")
        try:
            out = float(value)
        except ValueError:
            raise SourceError(f"{source}: {day}: unparseable {name} {str(value)[:40]!r}") from None
        if not math.isfinite(out):
            raise SourceError(f"{source}: {day}: non-finite {name}")
        return out
    o, h, lo, c = (number("open", open_), number("high", high), number("low", low),
                   number("close", close, required=True))
    v = number("volume", volume)
    if any(x is not None and x <= 0 for x in (o, h, lo, c)) or (v is not None and v < 0):
        raise SourceError(f"{source}: {day}: impossible bar {(o, h, lo, c, v)}")
    if h is not None and lo is not None and h < lo:
        raise SourceError(f"{source}: {day}: high {h} below low {lo}")
    return day, o, h, lo, c, v
