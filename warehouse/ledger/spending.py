"""What an agent spent on requests, read from the ledger (the record of money): by UTC day, by what it bought,
and its latest charges. A refund gives its request's sats back, so every figure here is net of refunds."""
from __future__ import annotations

from datetime import UTC, date, datetime, time

from sqlalchemy import Connection, Date, Engine, cast, func, select

from .db import reading
from .tables import ledger_entries

SPEND_KINDS = ("query", "refund")  # a debit for a request (negative), and its refund (positive)


class Spending:
    def __init__(self, engine: Engine):
        self.engine = engine

    def by_day(self, agent_pk: int, since: datetime) -> dict[date, int]:
        """Sats spent each UTC day from `since`, net of refunds; days with no spend are absent."""
        e = ledger_entries.c
        with reading(self.engine) as conn:
            day = _utc_day(conn.dialect.name)
            rows = conn.execute(select(day, func.sum(e.amount_sats)).where(*_spent(agent_pk, since))
                                .group_by(day)).all()
        return {_as_date(d): -int(total) for d, total in rows if total}

    def by_item(self, agent_pk: int, since: datetime) -> dict[str, int]:
        """Sats spent on each item (a module's name, or a key such as `ask:quick`) from `since`, net of refunds."""
        e = ledger_entries.c
        with reading(self.engine) as conn:
            rows = conn.execute(select(e.module, func.sum(e.amount_sats)).where(*_spent(agent_pk, since))
                                .group_by(e.module)).all()
        return {module or "other": -int(total) for module, total in rows if total}

    def latest(self, agent_pk: int, limit: int = 100) -> list[dict]:
        """The latest charges and refunds, newest first: when, what, sats (negative: spent), the pool, and the
        request id (the `X-Request-ID` its answer carried)."""
        e = ledger_entries.c
        with reading(self.engine) as conn:
            rows = conn.execute(select(e.created_at, e.kind, e.module, e.amount_sats, e.pool, e.reference)
                                .where(e.agent_id == agent_pk, e.kind.in_(SPEND_KINDS))
                                .order_by(e.id.desc()).limit(limit)).mappings().all()
        return [{"at": r["created_at"], "kind": r["kind"], "item": r["module"] or "other",
                 "sats": int(r["amount_sats"]), "pool": r["pool"], "request_id": r["reference"]} for r in rows]


def day_start(day: date) -> datetime:
    """The UTC midnight a day begins at."""
    return datetime.combine(day, time(), tzinfo=UTC)


def spent_since(conn: Connection, agent_pk: int, since: datetime) -> int:
    """Sats the agent's requests took from `since`, net of refunds, read inside the caller's transaction."""
    total = func.coalesce(func.sum(ledger_entries.c.amount_sats), 0)
    return -int(conn.scalar(select(total).where(*_spent(agent_pk, since))))


def _spent(agent_pk: int, since: datetime) -> tuple:
    e = ledger_entries.c
    return e.agent_id == agent_pk, e.kind.in_(SPEND_KINDS), e.created_at >= since


def _utc_day(dialect: str):
    created = ledger_entries.c.created_at
    if dialect == "postgresql":  # timestamptz: the day in UTC, not in the session's time zone
        return cast(func.timezone("UTC", created), Date)
    return func.date(created)  # SQLite stores naive UTC (tables.UTCDateTime)


def _as_date(value) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))
