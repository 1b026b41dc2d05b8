"""Who a key belongs to, answered from Redis: one GET per request instead of a SQL query in a thread.

`mi:apikey:<sha256 of the key>` holds the key's agent (its ledger row without the balance, which changes on
every debit and is always read from SQL), or TOMBSTONE once the key was rotated away. SQL stays the record:
a missing entry (Redis restarted, a key made before this directory, an expired entry) is looked up in SQL and
filled with SET NX. Three rules keep the directory from ever answering for a rotated key:

- A rotation writes a tombstone over each key it revoked, after its SQL commit and on the request that
  rotated, so the very next request on any server that shares the Redis is refused.
- A fill never overwrites (NX), so a lookup that read SQL just before a rotation committed cannot put the old
  key back over its tombstone; a refresh after an upgrade overwrites only a live entry (REFRESH_SCRIPT).
- Tombstones outlive any such read by far (TOMBSTONE_TTL_S); when one expires, SQL answers again: revoked.

Live entries expire after LIVE_TTL_S and are filled again from SQL, so a change made in SQL alone (an operator
setting a tier by hand) shows within that time; changes made through the API (a tier upgrade) show at once.
A tier's end needs no refresh: the effective tier is worked out from `tier_expires_at` on every lookup.
"""
from __future__ import annotations

import asyncio
from datetime import datetime
from typing import NamedTuple

import orjson
import redis.asyncio as aioredis

from warehouse import keys
from warehouse.ledger import Agents
from warehouse.ledger.agents import hash_key, with_effective_tier

TOMBSTONE = b"revoked"
LIVE_TTL_S = 300
TOMBSTONE_TTL_S = 7 * 86400
REMEMBERED_MAX = 10_000
_DATES = ("created_at", "tier_expires_at")
# Overwrite an entry unless it is a tombstone: a refresh racing a rotation must not bring the old key back.
REFRESH_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
return 1
"""


def entry_of(agent: dict) -> bytes:
    """The stored form: the agent row as SQL holds it (raw tier and its end), without the balance."""
    return orjson.dumps({str(k): v for k, v in agent.items() if k != "balance_sats"})


def row_of(entry: bytes) -> dict:
    """The agent row an entry holds, dates as datetimes, the tier as set."""
    row = orjson.loads(entry)
    for name in _DATES:
        if row.get(name) is not None:
            row[name] = datetime.fromisoformat(row[name])
    return row


class Found(NamedTuple):
    key: str  # the directory key
    entry: bytes  # as stored: what a later one-trip check compares against
    agent: dict  # with its effective tier at the time of the lookup (read-only: it may be shared)


class KeyDirectory:
    def __init__(self, redis: aioredis.Redis, agents: Agents):
        self.redis = redis
        self.agents = agents
        self._refresh = redis.register_script(REFRESH_SCRIPT)
        # entries this process has seen, by directory key: a hint only, never an answer on its own (`remembered`)
        self._seen: dict[str, tuple[bytes, dict]] = {}  # directory key -> (entry, its row)

    @staticmethod
    def key_of(api_key: str) -> str:
        return keys.api_key(hash_key(api_key))

    async def agent(self, api_key: str) -> dict | None:
        """The live key's agent (effective tier in `tier`), or None for an unknown or rotated key."""
        found = await self.lookup(api_key)
        return found.agent if found is not None else None

    async def lookup(self, api_key: str) -> Found | None:
        key = self.key_of(api_key)
        found = self.found(key, await self.redis.get(key))
        return await self.fill(api_key) if found is False else found

    def found(self, key: str, entry: bytes | None) -> Found | None | bool:
        """What an entry read from Redis says: Found, None (rotated away), or False (absent: ask `fill`)."""
        if entry is None:
            self._seen.pop(key, None)
            return False
        if entry == TOMBSTONE:
            self._seen.pop(key, None)
            return None
        return Found(key, entry, self._agent(self._remember(key, entry)))

    def remembered(self, api_key: str) -> Found | None:
        """The entry this process last read for the key, unchecked: a caller must have it checked in the same
        round trip that counts anything for the request (api/one_trip.py), and look the key up again when the
        check finds another entry."""
        key = self.key_of(api_key)
        seen = self._seen.get(key)
        if seen is None:
            return None
        return Found(key, seen[0], self._agent(seen[1]))

    def _agent(self, row: dict) -> dict:
        # a tier without an end reads the same at any time: its row is the agent (shared, never changed)
        return row if row["tier_expires_at"] is None else with_effective_tier(dict(row), self.agents.now())

    def _remember(self, key: str, entry: bytes) -> dict:
        seen = self._seen.get(key)
        if seen is not None and seen[0] == entry:
            return seen[1]
        if len(self._seen) >= REMEMBERED_MAX and key not in self._seen:
            self._seen.pop(next(iter(self._seen)))  # the oldest: one entry more or less costs one lookup
        row = row_of(entry)
        self._seen[key] = (entry, row)
        return row

    async def by_hash(self, key_hash: str) -> Found | None:
        """`lookup` for a key known by its hash only (a console session's): None once it was rotated away."""
        key = keys.api_key(key_hash)
        found = self.found(key, await self.redis.get(key))
        return await self._fill(key_hash) if found is False else found

    async def fill(self, api_key: str) -> Found | None:
        """Look the key up in SQL and, when it is live, add it (never over an entry already there)."""
        return await self._fill(hash_key(api_key))

    async def _fill(self, key_hash: str) -> Found | None:
        row = await asyncio.to_thread(self.agents.raw_by_key_hash, key_hash)
        if row is None:
            return None
        entry, key = entry_of(row), keys.api_key(key_hash)
        await self.redis.set(key, entry, nx=True, ex=LIVE_TTL_S)
        return self.found(key, entry)

    async def added(self, api_key: str, agent: dict) -> None:
        """A key just issued (registration): its entry, so its first request needs no SQL."""
        await self.redis.set(self.key_of(api_key), entry_of(agent), nx=True, ex=LIVE_TTL_S)

    async def revoked(self, key_hashes: list[str]) -> None:
        if key_hashes:
            async with self.redis.pipeline(transaction=False) as pipe:
                for key_hash in key_hashes:
                    self._seen.pop(keys.api_key(key_hash), None)
                    pipe.set(keys.api_key(key_hash), TOMBSTONE, ex=TOMBSTONE_TTL_S)
                await pipe.execute()

    async def changed(self, api_key: str) -> None:
        """The agent's row changed through the API (a tier upgrade): rewrite the key's entry from SQL, unless
        the key was rotated meanwhile."""
        await self.changed_hash(hash_key(api_key))

    async def changed_hash(self, key_hash: str) -> None:
        """`changed` for a key known by its hash (a console session's)."""
        row = await asyncio.to_thread(self.agents.raw_by_key_hash, key_hash)
        if row is not None:
            await self._refresh(keys=[keys.api_key(key_hash)], args=[entry_of(row), TOMBSTONE, LIVE_TTL_S])
