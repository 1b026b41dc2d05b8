"""The daily spending cap an agent's owner sets: what its requests may take from its pools and balance in a UTC
day. Counted in `agent_daily_spend` inside the debit's own transaction, after the agent's row is locked, so racing
requests of one agent are counted one after another and the cap can never be passed; a refund gives its sats back
to the day of its debit. The first debit of a day counts what the agent had already spent that day (the cap may
have been set in the middle of it)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import Connection, select

from .entries import lock_agent
from .spending import day_start, spent_since
from .tables import agent_daily_spend


@dataclass(frozen=True)
class CapReached:
    """The request would take the agent past its cap: nothing was charged."""
    cap_sats: int
    spent_sats: int  # today so far
    price_sats: int
    resets_at: datetime  # the next UTC midnight


class DailyCapReached(Exception):
    def __init__(self, reached: CapReached):
        super().__init__(f"the daily spending cap of {reached.cap_sats} sats is reached "
                         f"({reached.spent_sats} spent today)")
        self.reached = reached


def check_cap(conn: Connection, agent_pk: int, price_sats: int, now: datetime) -> CapReached | None:
    """Whether the agent's cap leaves room for `price_sats` on the day of `now`: None when it does (or there is no
    cap). Locks the agent's row until the transaction ends, so nothing else counts against the day meanwhile."""
    cap = lock_agent(conn, agent_pk)["daily_cap_sats"]
    if cap is None:
        return None
    day = debited_on(now)
    spent = conn.scalar(select(agent_daily_spend.c.spent_sats).where(*_of_day(agent_pk, day)))
    if spent is None:
        spent = spent_since(conn, agent_pk, day_start(day))
        conn.execute(agent_daily_spend.insert().values(agent_id=agent_pk, day=day, spent_sats=spent))
    if spent + price_sats <= cap:
        return None
    return CapReached(int(cap), int(spent), price_sats, day_start(day + timedelta(days=1)))


def count(conn: Connection, agent_pk: int, price_sats: int, now: datetime) -> None:
    """A debit `check_cap` made room for, counted against its day (no row: the agent has no cap)."""
    s = agent_daily_spend.c
    conn.execute(agent_daily_spend.update().where(*_of_day(agent_pk, debited_on(now)))
                 .values(spent_sats=s.spent_sats + price_sats))


def give_back(conn: Connection, agent_pk: int, price_sats: int, debited_at: datetime) -> None:
    """A refund: the sats count no more against the day of their debit (where that day was counted)."""
    s = agent_daily_spend.c
    conn.execute(agent_daily_spend.update()
                 .where(*_of_day(agent_pk, debited_on(debited_at)), s.spent_sats >= price_sats)
                 .values(spent_sats=s.spent_sats - price_sats))


def debited_on(moment: datetime) -> date:
    return moment.astimezone(UTC).date()


def _of_day(agent_pk: int, day: date) -> tuple:
    s = agent_daily_spend.c
    return s.agent_id == agent_pk, s.day == day
