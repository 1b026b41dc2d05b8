"""Agents and their API keys. Keys are shown once at registration or rotation; only their sha256 is kept."""
from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import Engine, func, select

from .db import reading
from .tables import agents, api_keys, ledger_entries, usage_events, utcnow


class UnknownReferralCode(ValueError):
    """Registration named a referral code that no agent has."""


def hash_key(api_key: str) -> str:
    return hashlib.sha256(api_key.encode()).hexdigest()


def new_api_key() -> str:
    return "mi_" + secrets.token_urlsafe(32)


class Agents:
    def __init__(self, engine: Engine):
        self.engine = engine

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
            agent = _agent_row(conn, agents.c.id == agent_pk)
        return agent, api_key

    def rotate_key(self, agent_pk: int) -> str:
        """Revoke every live key of the agent and issue a new one, in one transaction."""
        api_key = new_api_key()
        now = utcnow()
        with self.engine.begin() as conn:
            conn.execute(api_keys.update()
                         .where(api_keys.c.agent_id == agent_pk, api_keys.c.revoked_at.is_(None))
                         .values(revoked_at=now))
            conn.execute(api_keys.insert().values(key_hash=hash_key(api_key), agent_id=agent_pk, created_at=now))
        return api_key

    def by_key(self, api_key: str) -> dict | None:
        joined = agents.join(api_keys, api_keys.c.agent_id == agents.c.id)
        query = (select(agents).select_from(joined)
                 .where(api_keys.c.key_hash == hash_key(api_key), api_keys.c.revoked_at.is_(None)))
        with reading(self.engine) as conn:
            row = conn.execute(query).mappings().first()
        return dict(row) if row else None

    def get(self, agent_pk: int) -> dict | None:
        with reading(self.engine) as conn:
            return _agent_row(conn, agents.c.id == agent_pk)

    def by_agent_id(self, agent_id: str) -> dict | None:
        with reading(self.engine) as conn:
            return _agent_row(conn, agents.c.agent_id == agent_id)

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
            sums = dict(conn.execute(
                select(entries.kind, func.coalesce(func.sum(entries.amount_sats), 0))
                .where(entries.agent_id == agent_pk).group_by(entries.kind)
            ).all())
        return {
            "queries_total": counts[0],
            "queries_paid": counts[1],
            "queries_free": counts[2],
            # Debits are negative entries; refunds give sats back.
            "sats_spent": -int(sums.get("query", 0)) - int(sums.get("refund", 0)),
            "sats_topped_up": int(sums.get("topup", 0)),
            "per_module": {module: count for module, count in per_module.items()},
            "last_query_at": counts[3],
        }


def _agent_row(conn, where) -> dict | None:
    row = conn.execute(select(agents).where(where)).mappings().first()
    return dict(row) if row else None
