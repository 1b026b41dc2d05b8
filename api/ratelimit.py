"""Moving-window budgets in Redis (the `limits` library): per client address (pulse, catalog preview), and per
key by tier (module queries, the batch). The hot routes take their window in their one round trip
(api/one_trip.py); the batch takes it as a middleware."""
from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable

from limits import RateLimitItem, parse
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter

from api.errors import APIError
from api.one_trip import LIMITED, OneTrip, Window
from charging.attempt import Payer
from marketintel.redis_clients import async_options
from marketintel.settings import get_settings
from warehouse import keys


class RateLimiter:
    def __init__(self, redis_url: str, redis_options: dict | None = None):
        # the API's Redis timeouts and retries (marketintel/redis_clients.py), as the settings read them
        options = async_options(get_settings()) if redis_options is None else redis_options
        storage = RedisStorage(redis_url.replace("redis://", "async+redis://", 1), implementation="redispy",
                               key_prefix=keys.RATE, **options)
        self.limiter = MovingWindowRateLimiter(storage)
        self.full = FullWindows()

    def budget(self, name: str, rate: str) -> Budget:
        return Budget(self, name, parse(rate))


def window(item: RateLimitItem, *identifiers: str, cost: int = 1) -> Window:
    """The window as `limits`' Redis storage keeps it (its key prefix, then the item's key)."""
    return Window(f"{keys.RATE}:{item.key_for(*identifiers)}", item, identifiers, cost)


class FullWindows:
    """Windows found full, each until its oldest entry leaves (the library's reset time). A request in one of
    them is refused without a round trip, and exactly: until then no entry leaves the window, and other
    requests only add to it. A flood past a budget costs a round trip per window and reset, not per request."""

    MOST = 10_000

    def __init__(self):
        self.until: dict[str, float] = {}

    def reset_time(self, key: str) -> float | None:
        until = self.until.get(key)
        if until is not None and until <= time.time():
            del self.until[key]
            return None
        return until

    def note(self, key: str, until: float) -> None:
        if len(self.until) >= self.MOST:  # drop the ended ones; if none has ended, forget them all (a cache)
            now = time.time()
            self.until = {k: u for k, u in self.until.items() if u > now}
            if len(self.until) >= self.MOST:
                self.until.clear()
        self.until[key] = until


async def _refused(limiter: MovingWindowRateLimiter, full: FullWindows, taken: Window, scope: str) -> APIError:
    reset = full.reset_time(taken.key)
    if reset is None:
        stats = await limiter.get_window_stats(taken.item, *taken.identifiers)
        reset = stats.reset_time
        if stats.remaining == 0:  # full for any cost (a costlier request may be refused with room left)
            full.note(taken.key, reset)
    return _rate_limited(taken.item, reset, scope)


def _rate_limited(item: RateLimitItem, reset: float, scope: str) -> APIError:
    retry_after = max(1, math.ceil(reset - time.time()))
    return APIError(429, "rate_limited",
                    f"At most {item.amount} requests per {item.GRANULARITY.name} per {scope} here.",
                    headers={"Retry-After": str(retry_after)}, retry_after_seconds=retry_after,
                    limit=f"{item.amount}/{item.GRANULARITY.name}")


def _refuse_if_full(full: FullWindows, taken: Window, scope: str) -> None:
    reset = full.reset_time(taken.key)
    if reset is not None:
        raise _rate_limited(taken.item, reset, scope)


class Budget:
    """A named budget (several routes may share one, as pulse and catalog preview do)."""

    SCOPE = "client address"

    def __init__(self, limiter: RateLimiter, name: str, item: RateLimitItem):
        self.limiter, self.full, self.name, self.item = limiter.limiter, limiter.full, name, item

    def window(self, client_ip: str) -> Window:
        """The address's window; 429 at once when it is known to be full."""
        taken = window(self.item, self.name, client_ip)
        _refuse_if_full(self.full, taken, self.SCOPE)
        return taken

    async def refused(self, taken: Window) -> APIError:
        return await _refused(self.limiter, self.full, taken, self.SCOPE)

    async def take(self, client_ip: str, one_trip: OneTrip, reads: list[str]) -> tuple:
        """The address's window taken and `reads` read in one round trip; 429 when the window is full."""
        taken = self.window(client_ip)
        outcome = await one_trip.run(reads, window=taken)
        if outcome.code == LIMITED:
            raise await self.refused(taken)
        return outcome.reads


Cost = Callable[[object], Awaitable[int]]


class KeyBudgets:
    """Per-key limits by the caller's effective tier, on the resources passed to `guard`. The window is kept
    per agent, so rotating the key does not reset it; callers without a key share the free tier's budget per
    client address (hashed: Redis never holds addresses). A resource may weigh a request (the batch counts
    each module in it as one query)."""

    def __init__(self, limiter: RateLimiter, rates: dict[str, str]):
        self.limiter, self.full = limiter.limiter, limiter.full
        self.items = {tier: parse(rate) for tier, rate in rates.items()}
        self.guarded: list[tuple[object, Cost | None]] = []

    def guard(self, resource, cost: Cost | None = None) -> None:
        self.guarded.append((resource, cost))

    def window(self, payer: Payer, cost: int = 1) -> Window:
        """The caller's window; 429 at once when it is known to be full."""
        item = self.items[payer.agent["tier"] if payer.agent else "free"]
        taken = window(item, "key", payer.caller_id, cost=min(item.amount, cost))
        _refuse_if_full(self.full, taken, self._scope(payer))
        return taken

    async def refused(self, payer: Payer, taken: Window) -> APIError:
        return await _refused(self.limiter, self.full, taken, self._scope(payer))

    async def take(self, payer: Payer, cost: int = 1) -> None:
        """`cost` queries from the caller's window; 429 when it is full."""
        taken = self.window(payer, cost)
        if not await self.limiter.hit(taken.item, *taken.identifiers, cost=taken.cost):
            raise await self.refused(payer, taken)

    @staticmethod
    def _scope(payer: Payer) -> str:
        return "API key" if payer.agent else "client address without a key"

    async def process_resource(self, req, resp, resource, params):
        cost_of = next((cost for guarded, cost in self.guarded if guarded is resource), False)
        if cost_of is False:
            return
        await self.take(req.context.payer, await cost_of(req) if cost_of else 1)


async def batch_cost(req) -> int:
    """One per module named in the batch body (at least 1); a malformed body is left to validation."""
    try:
        body = await req.get_media(default_when_empty={})
    except Exception:  # noqa: BLE001  (the route's own validation answers 422 for it)
        return 1
    modules = body.get("modules") if isinstance(body, dict) else None
    return max(1, len(modules)) if isinstance(modules, list) else 1
