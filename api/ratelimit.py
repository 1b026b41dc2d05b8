"""Per-client moving-window budgets in Redis (the `limits` library), applied as Falcon hooks."""
from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter

from api.errors import APIError


class RateLimiter:
    def __init__(self, redis_url: str):
        storage = RedisStorage(redis_url.replace("redis://", "async+redis://", 1), implementation="redispy",
                               key_prefix="mi:rate")
        self.limiter = MovingWindowRateLimiter(storage)

    def budget(self, name: str, rate: str) -> "Budget":
        return Budget(self.limiter, name, parse(rate))


class Budget:
    """A named budget (several routes may share one, as pulse and catalog preview do)."""

    def __init__(self, limiter: MovingWindowRateLimiter, name: str, item: RateLimitItem):
        self.limiter, self.name, self.item = limiter, name, item

    async def __call__(self, req, resp, resource, params):
        who = req.context.client_ip
        if await self.limiter.hit(self.item, self.name, who):
            return
        stats = await self.limiter.get_window_stats(self.item, self.name, who)
        retry_after = max(1, math.ceil(stats.reset_time - time.time()))
        raise APIError(429, "rate_limited",
                       f"At most {self.item.amount} requests per {self.item.GRANULARITY.name} per client address here.",
                       headers={"Retry-After": str(retry_after)}, retry_after_seconds=retry_after)
