"""The daily free allowance: attempts per caller, item and market day, counted in Redis.

An attempt is counted before it is served and the count decides whether it is free; a failed attempt is
taken back (`unclaim`), so only served uses count. Counters expire after two days (a day's count is read only
on that day of the market clock)."""
from __future__ import annotations

import redis.asyncio as aioredis

from charging.attempt import Attempt
from charging.prices import PricedItem
from intel.clock import MarketClock
from warehouse import keys

COUNT_TTL_S = 2 * 86400


class FreeAllowance:
    def __init__(self, redis: aioredis.Redis, clock: MarketClock):
        self.redis = redis
        self.clock = clock

    def counter(self, attempt: Attempt) -> tuple[str, int]:
        """The counter to INCR for the attempt, and its TTL, for a caller's own round trip; give the count to
        `counted`. The key is kept on the attempt, so an undo takes back exactly this count, even across
        midnight."""
        attempt.claim_key = keys.free_uses(self.clock.today(), attempt.payer.caller_id, attempt.item.key)
        return attempt.claim_key, COUNT_TTL_S

    @staticmethod
    def counted(attempt: Attempt, uses_today: int) -> None:
        attempt.uses_today = int(uses_today)

    async def claim(self, attempt: Attempt) -> None:
        key, ttl = self.counter(attempt)
        async with self.redis.pipeline(transaction=False) as pipe:
            uses_today, _ = await pipe.incr(key).expire(key, ttl).execute()
        self.counted(attempt, uses_today)

    async def unclaim(self, attempt: Attempt) -> None:
        # only a count Redis received: an attempt cancelled before its pipeline ran must not gain a free use
        if attempt.uses_today is not None and attempt.claim_key:
            await self.redis.decr(attempt.claim_key)
            attempt.claim_key = None

    async def uses_today(self, caller_id: str, item_keys: list[str]) -> dict[str, int]:
        """Served (and in-flight) attempts today per item."""
        if not item_keys:
            return {}
        today = self.clock.today()
        used = await self.redis.mget([keys.free_uses(today, caller_id, k) for k in item_keys])
        return {k: max(0, int(u or 0)) for k, u in zip(item_keys, used)}

    async def left(self, caller_id: str, items: list[PricedItem]) -> dict[str, int]:
        """Free uses left today per item key."""
        used = await self.uses_today(caller_id, [item.key for item in items])
        return {item.key: max(0, item.free_per_day - used[item.key]) for item in items}
