"""Agents and their API keys. Keys are shown once at registration or rotation; only their sha256 is kept.

Every agent dict this class returns carries the effective tier in `tier`: a paid tier past its
`tier_expires_at` reads as `free` everywhere (routes, tier gates, rate limits) without a job to reset it.
The API resolves keys through api/key_directory.py (Redis, filled from here); a rotation returns the hashes
it revoked so that the directory refuses them at once on every worker and instance."""
from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Engine, func, select

from .db import reading
from .entries import lock_agent
from .tables import CREDIT_POOLS, agent_pools, agents, api_keys, ledger_entries, referrals, usage_events, utcnow
from .tiers import effective_tier


class UnknownReferralCode(ValueError):
    """Registration named a referral code that no agent has."""


def hash_key(api_key: str) -> str:
    return hashlib.sha256(api_key.encode()).hexdigest()


def new_api_key() -> str:
    """256 bits from the OS's CSPRNG."""
    return "mi_" + secrets.token_urlsafe(32)


def with_effective_tier(agent: dict, now: datetime) -> dict:
    """The agent as every caller sees it: a paid tier past its end reads `free` (and has no end)."""
    agent["tier"] = effective_tier(agent["tier"], agent["tier_expires_at"], now)
    if agent["tier"] == "free":
        agent["tier_expires_at"] = None
    return agent


class KeyRevoked(LookupError):
    """The key presented for a rotation is no longer live (a concurrent rotation revoked it)."""


class Agents:
    def __init__(self, engine: Engine, now: Callable[[], datetime] = utcnow):
        self.engine = engine
        self.now = now  # for the effective tier; see warehouse/ledger/money.py on why wall time

    def register(self, name: str, referral_code: str | None = None) -> tuple[dict, str]:
        """Create an agent and its first key; returns (agent dict, plaintext key)."""
        api_key = new_api_key()
        now = utcnow()
        with self.engine.begin() as conn:
            referred_by = None
            if referral_code:
                referred_by = conn.scalar(select(agents.c.id).where(agents.c.referral_code == referral_code))
                if referred_by is None:
                    raise UnknownReferralCode(referral_code)
            agent_pk = conn.execute(agents.insert().values(
                agent_id="agt_" + secrets.token_hex(12),
                name=name,
                referral_code="ref_" + secrets.token_hex(6),
                referred_by=referred_by,
                created_at=now,
            )).inserted_primary_key[0]
            conn.execute(api_keys.insert().values(key_hash=hash_key(api_key), agent_id=agent_pk, created_at=now))
            # every pool exists from the start, so each later change is a guarded UPDATE of a known row
            conn.execute(agent_pools.insert(), [{"agent_id": agent_pk, "pool": p, "remaining_sats": 0}
                                                for p in CREDIT_POOLS])
            if referred_by is not None:
                conn.execute(referrals.insert().values(referred_id=agent_pk, referrer_id=referred_by, created_at=now))
            agent = self._row(conn, agents.c.id == agent_pk)
        return agent, api_key

    def rotate_key(self, agent_pk: int, current_key: str | None = None) -> str:
        return self.rotate(agent_pk, current_key)[0]

    def rotate(self, agent_pk: int, current_key: str | None = None,
               current_key_hash: str | None = None) -> tuple[str, list[str]]:
        """Revoke every live key of the agent and issue a new one, in one transaction; returns the new key and
        the hashes of the keys revoked. With `current_key` (the key the request came with) or its hash (a console
        session's) the rotation only happens while that key is still live, so of two concurrent rotations with
        one key exactly one wins (KeyRevoked for the other)."""
        if current_key is not None:
            current_key_hash = hash_key(current_key)
        api_key = new_api_key()
        now = utcnow()
        k = api_keys.c
        with self.engine.begin() as conn:
            lock_agent(conn, agent_pk)  # concurrent rotations queue here, then each sees the other's new key
            live = live_key_hashes(conn, agent_pk)
            if current_key_hash is not None and current_key_hash not in live:
                raise KeyRevoked("the key was rotated meanwhile")
            conn.execute(api_keys.update().where(k.agent_id == agent_pk, k.revoked_at.is_(None)).values(revoked_at=now))
            conn.execute(api_keys.insert().values(key_hash=hash_key(api_key), agent_id=agent_pk, created_at=now))
        return api_key, live

    def set_tier(self, agent_id: str, tier: str, expires_at: datetime | None = None) -> list[str]:
        """An operator's change of tier; returns the hashes of the agent's live keys (for the key directory)."""
        with self.engine.begin() as conn:
            agent_pk = conn.scalar(select(agents.c.id).where(agents.c.agent_id == agent_id))
            if agent_pk is None:
                raise LookupError(f"no agent {agent_id}")
            conn.execute(agents.update().where(agents.c.id == agent_pk).values(tier=tier, tier_expires_at=expires_at))
            return live_key_hashes(conn, agent_pk)

    def set_daily_cap(self, agent_pk: int, cap_sats: int | None) -> list[str]:
        """The owner's daily spending cap (None: no cap; warehouse/ledger/caps.py); returns the hashes of the
        agent's live keys (for the key directory)."""
        if cap_sats is not None and (not isinstance(cap_sats, int) or isinstance(cap_sats, bool) or cap_sats < 1):
            raise ValueError(f"a daily cap is a positive whole number of sats, got {cap_sats!r}")
        with self.engine.begin() as conn:
            conn.execute(agents.update().where(agents.c.id == agent_pk).values(daily_cap_sats=cap_sats))
            return live_key_hashes(conn, agent_pk)

    def by_key(self, api_key: str) -> dict | None:
        """The agent of a live key, read from SQL (the API asks api/key_directory.py first)."""
        row = self.raw_by_key(api_key)
        return with_effective_tier(row, self.now()) if row is not None else None

    def raw_by_key(self, api_key: str) -> dict | None:
        """The agent row of a live key as stored: `tier` is the tier set, even past its end."""
        return self.raw_by_key_hash(hash_key(api_key))

    def raw_by_key_hash(self, key_hash: str) -> dict | None:
        joined = agents.join(api_keys, api_keys.c.agent_id == agents.c.id)
        where = (api_keys.c.key_hash == key_hash, api_keys.c.revoked_at.is_(None))
        with reading(self.engine) as conn:
            row = conn.execute(select(agents).select_from(joined).where(*where)).mappings().first()
        return dict(row) if row is not None else None

    def get(self, agent_pk: int) -> dict | None:
        with reading(self.engine) as conn:
            return self._row(conn, agents.c.id == agent_pk)

    def _row(self, conn, *where) -> dict | None:
        row = conn.execute(select(agents).where(*where)).mappings().first()
        return with_effective_tier(dict(row), self.now()) if row is not None else None

    def usage(self, agent_pk: int) -> dict:
        """Query counts from usage events; sats from the ledger (the record of money)."""
        events = usage_events.c
        entries = ledger_entries.c
        with reading(self.engine) as conn:
            counts = conn.execute(
                select(func.count(), func.count().filter(events.free.is_(False)),
                       func.count().filter(events.free.is_(True)), func.max(events.created_at))
                .where(events.agent_id == agent_pk)
            ).one()
            per_module = dict(conn.execute(
                select(events.module, func.count()).where(events.agent_id == agent_pk)
                .group_by(events.module).order_by(events.module)
            ).all())
            by_kind_pool = conn.execute(
                select(entries.kind, entries.pool, func.coalesce(func.sum(entries.amount_sats), 0))
                .where(entries.agent_id == agent_pk).group_by(entries.kind, entries.pool)
            ).all()
        sums: dict[str, int] = {}
        spent_by_pool: dict[str, int] = {}
        for kind, pool, total in by_kind_pool:
            sums[kind] = sums.get(kind, 0) + int(total)
            if kind in ("query", "refund"):  # debits are negative entries; refunds give sats back
                spent_by_pool[pool] = spent_by_pool.get(pool, 0) - int(total)
        return {
            "queries_total": counts[0],
            "queries_paid": counts[1],
            "queries_free": counts[2],
            "sats_spent": sum(spent_by_pool.values()),
            "sats_spent_by_pool": spent_by_pool,
            "sats_topped_up": sums.get("topup", 0),
            "sats_paid_for_tiers": -sums.get("upgrade", 0),
            "sats_paid_for_plans": -sums.get("purchase", 0),
            "referral_sats_earned": sums.get("referral", 0) + sums.get("referral_reversal", 0),
            "per_module": {module: count for module, count in per_module.items()},
            "last_query_at": counts[3],
        }


def live_key_hashes(conn, agent_pk: int) -> list[str]:
    k = api_keys.c
    return list(conn.scalars(select(k.key_hash).where(k.agent_id == agent_pk, k.revoked_at.is_(None))))
