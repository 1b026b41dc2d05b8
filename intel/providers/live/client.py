"""One HTTP client per live source: timeouts, retries with backoff, a circuit breaker, a request budget.

The breaker and the status shape are ours (a few lines) because the status must match the Redis
`mi:status:sources` contract and be restorable across run processes; the budget uses `limits`.
Every failure becomes a `SourceError`; callers never see a half-parsed body.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, TypeVar

import httpx
from limits import RateLimitItemPerHour
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

T = TypeVar("T")


class SourceError(Exception):
    """A source did not deliver usable data (transport, status, format). Its series keep their old rows."""


@dataclass(frozen=True)
class LiveConfig:
    fred_url: str
    treasury_url: str
    ecb_url: str
    coinbase_url: str
    stooq_url: str
    timeout_s: float = 10.0
    retries: int = 2
    backoff_s: float = 0.5
    breaker_failures: int = 3
    breaker_reset_s: float = 300.0
    request_budget: int = 600
    probe_timeout_s: float = 2.0

    @classmethod
    def from_settings(cls, settings) -> "LiveConfig":
        return cls(**{name: getattr(settings, f"live_{name}") for name in cls.__dataclass_fields__})


def _iso(epoch: float | None) -> str | None:
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="seconds") if epoch else None


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

    def __init__(self, name: str, config: LiveConfig, transport: httpx.BaseTransport | None = None) -> None:
        self.name, self.config = name, config
        self.breaker = Breaker(config.breaker_failures, config.breaker_reset_s)
        self._budget = RateLimitItemPerHour(max(1, config.request_budget))
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._http = httpx.Client(timeout=config.timeout_s, follow_redirects=True, transport=transport,
                                  headers={"User-Agent": "marketintel/0.1 (+self-hosted)"})

    def close(self) -> None:
        self._http.close()

    def requests_used(self) -> int:
        return self.config.request_budget - self._limiter.get_window_stats(self._budget, self.name).remaining

    def status(self) -> dict:
        b = self.breaker
        b.allow()  # an open breaker whose reset time passed reports half_open
        return {"state": b.state, "consecutive_failures": b.consecutive_failures, "last_error": b.last_error,
                "last_error_at": _iso(b.last_error_at), "last_success_at": _iso(b.last_success_at),
                "requests_used": self.requests_used(), "request_budget": self.config.request_budget}

    def call(self, url: str, params: dict | None, parse: Callable[[httpx.Response], T],
             retries: int | None = None, timeout_s: float | None = None) -> T:
        if not self.breaker.allow():
            raise SourceError(f"{self.name}: circuit open after {self.breaker.consecutive_failures} failures "
                              f"(last: {self.breaker.last_error})")
        try:
            result = parse(self._get(url, params, self.config.retries if retries is None else retries, timeout_s))
        except SourceError as exc:
            if not str(exc).startswith(f"{self.name}: request budget"):  # our limit, not the source's fault
                self.breaker.failure(str(exc))
            raise
        except Exception as exc:  # a parser bug or odd body: still a source failure, never a crash
            self.breaker.failure(f"{self.name}: {type(exc).__name__}: {exc}")
            raise SourceError(f"{self.name}: {type(exc).__name__}: {exc}") from exc
        self.breaker.success()
        return result

    def _get(self, url: str, params: dict | None, retries: int, timeout_s: float | None) -> httpx.Response:
        error = ""
        for attempt in range(retries + 1):
            if not self._limiter.hit(self._budget, self.name):
                raise SourceError(f"{self.name}: request budget of {self.config.request_budget}/hour used up")
            delay = self.config.backoff_s * 2 ** attempt
            try:
                response = self._http.get(url, params=params, timeout=timeout_s or self.config.timeout_s)
            except httpx.TimeoutException:
                error = f"{self.name}: timeout after {timeout_s or self.config.timeout_s}s"
            except httpx.HTTPError as exc:  # connection refused, reset, truncated transfer, DNS
                error = f"{self.name}: {type(exc).__name__}: {exc}"
            else:
                if response.status_code == 429 or response.status_code >= 500:
                    error = f"{self.name}: HTTP {response.status_code}"
                    delay = max(delay, _retry_after(response))
                elif response.status_code >= 400:
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


def text_body(source: str, response: httpx.Response) -> str:
    """The body of a CSV answer, or SourceError for what must not be parsed as data: an HTML page sent with
    200 (error and consent pages), an empty body, a file cut short (the last line must end in a newline:
    a cut inside the last number would otherwise read as a different number)."""
    if "html" in response.headers.get("content-type", "").lower():
        raise SourceError(f"{source}: HTML answer where CSV was expected")
    text = response.text
    if not text.strip():
        raise SourceError(f"{source}: empty body")
    if text.lstrip()[:1] == "<":
        raise SourceError(f"{source}: HTML/XML answer where CSV was expected")
    if not text.endswith("\n"):
        raise SourceError(f"{source}: truncated body (last line incomplete)")
    return text
