"""Low-balance warnings: the agent's owner sets a level (the console's limits page); when the balance falls below it,
one `account.balance_low` event goes to that agent alone (its SSE stream, its webhook subscriptions to the type).

One warning per fall: `low_balance_warned_at` records it, and is cleared once the balance is back at or above the
level, which re-arms the warning. `warning` decides in one transaction, with the agent's row locked, and its event
is inserted in that transaction by the caller (jobs/balance.py), so a warning is sent once or not marked sent.
It is asked after a debit that crossed the level (the request id names the debit: a warning given after that
debit was written is the one for that fall, so a replayed debit or a sweep racing it adds none) and by the sweeper
for every agent whose state disagrees with its balance (a lost job, a level set below the balance, a credit)."""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import and_, or_, select, update
from sqlalchemy.engine import Connection, Engine

from intel.events.types import EVENT_TYPES
from warehouse.ledger.agents import live_key_hashes
from warehouse.ledger.db import reading
from warehouse.ledger.tables import agents, ledger_entries, utcnow

EVENT_TYPE = "account.balance_low"
MAX_LEVEL_SATS = 100_000_000  # one bitcoin: a level above it would warn at every balance an agent keeps


class LowBalance:
    def __init__(self, engine: Engine, now: Callable[[], datetime] = utcnow):
        self.engine = engine
        self.now = now

    def set_level(self, agent_pk: int, level_sats: int | None) -> list[str]:
        """The owner's level (None: no warnings), re-armed; returns the hashes of the agent's live keys (for the
        key directory, whose row the debit path reads the level from)."""
        if level_sats is not None and (not isinstance(level_sats, int) or isinstance(level_sats, bool)
                                       or not 1 <= level_sats <= MAX_LEVEL_SATS):
            raise ValueError(f"a low-balance level is a whole number of sats, 1 to {MAX_LEVEL_SATS:,}; got "
                             f"{level_sats!r}")
        with self.engine.begin() as conn:
            conn.execute(agents.update().where(agents.c.id == agent_pk)
                         .values(low_balance_sats=level_sats, low_balance_warned_at=None))
            return live_key_hashes(conn, agent_pk)

    def due(self) -> list[int]:
        """The agents whose warning state disagrees with their balance: below the level and not warned, or back
        at or above it (or without a level) and still marked warned."""
        a = agents.c
        below = a.balance_sats < a.low_balance_sats
        with reading(self.engine) as conn:
            return list(conn.scalars(select(a.id).where(or_(
                and_(a.low_balance_sats.is_not(None), below, a.low_balance_warned_at.is_(None)),
                and_(a.low_balance_warned_at.is_not(None), or_(a.low_balance_sats.is_(None), ~below))))))

    def warning(self, conn: Connection, agent_pk: int, request_id: str | None = None) -> dict | None:
        """In the caller's transaction: the warning due to the agent now (the event to insert with it), marked
        sent; or None, re-arming the warning when the balance is back at or above the level. `request_id`: the
        debit that crossed the level (None: a sweep)."""
        a, now = agents.c, self.now()
        row = conn.execute(select(a.agent_id, a.balance_sats, a.low_balance_sats, a.low_balance_warned_at)
                           .where(a.id == agent_pk).with_for_update()).first()
        if row is None:
            return None
        below = row.low_balance_sats is not None and row.balance_sats < row.low_balance_sats
        if not below:
            if row.low_balance_warned_at is not None:
                conn.execute(update(agents).where(a.id == agent_pk).values(low_balance_warned_at=None))
            return None
        if row.low_balance_warned_at is not None and not self._fell_again(conn, agent_pk, request_id,
                                                                            row.low_balance_warned_at):
            return None
        conn.execute(update(agents).where(a.id == agent_pk).values(low_balance_warned_at=now))
        return balance_low_event(row.agent_id, row.balance_sats, row.low_balance_sats, now)

    @staticmethod
    def _fell_again(conn: Connection, agent_pk: int, request_id: str | None, warned_at: datetime) -> bool:
        """Whether the debit `request_id` was written after the last warning: it crossed the level, so the balance
        had been back at or above it since (a credit the sweeper had not yet seen): a new fall."""
        if request_id is None:
            return False
        e = ledger_entries.c
        debited_at = conn.scalar(select(e.created_at).where(e.agent_id == agent_pk, e.kind == "query",
                                                            e.reference == request_id))
        return debited_at is not None and debited_at > warned_at


def balance_low_event(agent_id: str, balance_sats: int, level_sats: int, now: datetime) -> dict:
    return {"type": EVENT_TYPE, "urgency": EVENT_TYPES[EVENT_TYPE].urgency, "occurred_at": now.isoformat(),
            "data_as_of": now.date().isoformat(),
            "summary": f"Balance {balance_sats:,} sats, below your level of {level_sats:,} sats: top up to keep "
                       "paying from it.",
            "figures": [{"field": "balance_sats", "value": balance_sats},
                        {"field": "low_balance_sats", "value": level_sats}],
            "simulated": False, "data_source": "ledger", "audience": agent_id}
