"""The ledger's invariant, checkable at any time: every balance equals the sum of its entries, is never
negative, and matches the balance_after of its latest entry."""
from __future__ import annotations

from sqlalchemy import Engine, func, select

from .db import reading
from .tables import agents, ledger_entries


def check_consistency(engine: Engine) -> list[str]:
    """Human-readable problems; an empty list means the ledger is consistent."""
    entries = ledger_entries.c
    sums = (select(entries.agent_id, func.sum(entries.amount_sats).label("total"),
                   func.max(entries.id).label("last_id"))
            .group_by(entries.agent_id).subquery())
    last = ledger_entries.alias("last_entry")
    query = (select(agents.c.id, agents.c.agent_id, agents.c.balance_sats, sums.c.total, last.c.balance_after)
             .select_from(agents.outerjoin(sums, sums.c.agent_id == agents.c.id)
                          .outerjoin(last, last.c.id == sums.c.last_id))
             .order_by(agents.c.id))
    problems = []
    with reading(engine) as conn:
        for row in conn.execute(query):
            total = int(row.total or 0)
            if row.balance_sats < 0:
                problems.append(f"{row.agent_id}: negative balance {row.balance_sats}")
            if row.balance_sats != total:
                problems.append(f"{row.agent_id}: balance {row.balance_sats} != sum of entries {total}")
            if row.balance_after is not None and row.balance_after != row.balance_sats:
                problems.append(f"{row.agent_id}: latest entry says {row.balance_after}, "
                                f"balance is {row.balance_sats}")
    return problems
