"""The one way sats move inside a transaction: a guarded UPDATE of the balance or of a credit pool, plus its
ledger entry. Callers own the transaction (`engine.begin()`), so a state change and the sats that pay for it
commit or roll back together."""
from __future__ import annotations

from datetime import datetime
from functools import cache

from sqlalchemy import Connection, bindparam, func, select

from .tables import CREDIT_POOLS, agent_pools, agents, ledger_entries, utcnow

# The statements a query's debit and refund run are built once, with bind parameters: SQLAlchemy then reuses
# their compiled form and their cache key, instead of building and hashing a new statement on every call
# (about two thirds of a debit's time went to that).
_ENTRY = select(ledger_entries).where(ledger_entries.c.kind == bindparam("e_kind"),
                                      ledger_entries.c.reference == bindparam("e_reference"))
_INSERT_ENTRY = ledger_entries.insert()
_BALANCE = select(agents.c.balance_sats).where(agents.c.id == bindparam("e_agent"))
_POOL_AMOUNT = select(agent_pools.c.remaining_sats).where(agent_pools.c.agent_id == bindparam("e_agent"),
                                                          agent_pools.c.pool == bindparam("e_pool"))


def require_sats(value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"sats must be a positive integer, got {value!r}")


def entry(conn: Connection, kind: str, reference: str) -> dict | None:
    row = conn.execute(_ENTRY, {"e_kind": kind, "e_reference": reference}).mappings().first()
    return dict(row) if row else None


def move(conn: Connection, agent_pk: int, pool: str, delta: int, kind: str, reference: str,
         module: str | None = None, usable_at: datetime | None = None,
         usable_until: datetime | None = None) -> int | None:
    """Add `delta` to one of the agent's pools and write the entry. A negative delta is guarded: it only
    applies when the pool holds enough (and, given `usable_at`, is still usable then); otherwise nothing is
    written and the result is None. Returns the pool's new amount. `usable_until` also sets the pool's end."""
    after = change(conn, agent_pk, pool, delta, usable_at, usable_until)
    if after is not None:
        conn.execute(_INSERT_ENTRY, {"agent_id": agent_pk, "pool": pool, "amount_sats": delta, "balance_after": after,
                                     "kind": kind, "reference": reference, "module": module, "created_at": utcnow()})
    return after


def change(conn: Connection, agent_pk: int, pool: str, delta: int, usable_at: datetime | None = None,
           usable_until: datetime | None = None) -> int | None:
    """The guarded UPDATE alone (see `move`); every caller writes the matching entry itself."""
    if pool != "balance" and pool not in CREDIT_POOLS:
        raise ValueError(f"unknown pool {pool!r}")
    guarded = delta < 0
    statement = _change_statement(pool == "balance", guarded, guarded and usable_at is not None,
                                  usable_until is not None)
    row = conn.execute(statement, {"c_agent": agent_pk, "c_pool": pool, "c_delta": delta, "c_need": -delta,
                                   "c_usable_at": usable_at, "c_usable_until": usable_until}).first()
    return None if row is None else int(row[0])


def pool_usable(at):
    """A credit pool is usable at `at` (a bind parameter) while it has no end or ends later."""
    p = agent_pools.c
    return p.usable_until.is_(None) | (p.usable_until > at)


@cache
def _change_statement(balance: bool, guarded: bool, usable_at: bool, usable_until: bool):
    """`change`'s UPDATE for one shape: the balance or a credit pool; guarded on holding `c_need` (a debit);
    guarded on being usable at `c_usable_at`; setting the pool's end to `c_usable_until`."""
    if balance:
        a = agents.c
        statement = agents.update().where(a.id == bindparam("c_agent"))
        if guarded:
            statement = statement.where(a.balance_sats >= bindparam("c_need"))
        return statement.values(balance_sats=a.balance_sats + bindparam("c_delta")).returning(a.balance_sats)
    p = agent_pools.c
    statement = agent_pools.update().where(p.agent_id == bindparam("c_agent"), p.pool == bindparam("c_pool"))
    if guarded:
        statement = statement.where(p.remaining_sats >= bindparam("c_need"))
    if usable_at:
        statement = statement.where(pool_usable(bindparam("c_usable_at")))
    values = {"remaining_sats": p.remaining_sats + bindparam("c_delta")}
    if usable_until:
        values["usable_until"] = bindparam("c_usable_until", type_=p.usable_until.type)
    return statement.values(**values).returning(p.remaining_sats)


def amount(conn: Connection, agent_pk: int, pool: str) -> int:
    if pool == "balance":
        return int(conn.scalar(_BALANCE, {"e_agent": agent_pk}))
    return int(conn.scalar(_POOL_AMOUNT, {"e_agent": agent_pk, "e_pool": pool}))


# Pools whose unused credits are forfeited when their plan ends. Burst credits are not: they only stop being
# usable while no subscription is active, and a later subscription makes them usable again.
FORFEITED_AT_END = ("subscription", "commitment")


def forfeit_expired(conn: Connection, agent_pk: int, now: datetime) -> int:
    """Write off what is left in ended forfeiting pools (an `expiry` entry each); returns the sats written off.
    The UPDATE is guarded on the amount just read, so two racing write-offs cannot both apply."""
    p = agent_pools.c
    rows = conn.execute(select(p.pool, p.remaining_sats).where(*_ended(agent_pk, now))).all()
    total = 0
    for pool, remaining in rows:
        # guarded on the amount read AND on the pool having ended: on PostgreSQL an UPDATE that waited for a
        # renewal's row lock re-checks only this WHERE against the renewed row (same amount, new end)
        done = conn.execute(agent_pools.update()
                            .where(p.agent_id == agent_pk, p.pool == pool, p.remaining_sats == remaining,
                                   p.usable_until.is_not(None), p.usable_until <= now)
                            .values(remaining_sats=0)).rowcount
        if done != 1:
            continue
        # the pool's latest entry id makes the reference unique: a later refund into the same ended pool
        # and its own write-off get another one
        last_id = conn.scalar(select(func.max(ledger_entries.c.id)).where(
            ledger_entries.c.agent_id == agent_pk, ledger_entries.c.pool == pool))
        conn.execute(ledger_entries.insert().values(
            agent_id=agent_pk, pool=pool, amount_sats=-int(remaining), balance_after=0, kind="expiry",
            reference=f"expiry:{agent_pk}:{pool}:{last_id}", module=None, created_at=utcnow()))
        total += int(remaining)
    return total


def has_forfeitable(conn: Connection, agent_pk: int, now: datetime) -> bool:
    return conn.scalar(select(func.count()).select_from(agent_pools).where(*_ended(agent_pk, now))) > 0


def _ended(agent_pk: int, now: datetime) -> tuple:
    """Forfeiting pools of the agent that ended with sats left in them."""
    p = agent_pools.c
    return (p.agent_id == agent_pk, p.pool.in_(FORFEITED_AT_END), p.remaining_sats > 0,
            p.usable_until.is_not(None), p.usable_until <= now)


def lock_agent(conn: Connection, agent_pk: int) -> dict:
    """The agent's row, locked until the transaction ends (PostgreSQL; SQLite's BEGIN IMMEDIATE already
    serializes writers), for decisions that read and then write more than one row."""
    row = conn.execute(select(agents).where(agents.c.id == agent_pk).with_for_update()).mappings().first()
    if row is None:
        raise LookupError(f"no agent {agent_pk}")
    return dict(row)
