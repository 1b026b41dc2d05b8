"""The ledger's invariants, checkable at any time:
- every balance equals the sum of its `balance` entries, is never negative, and matches the balance_after
  of its latest one;
- every credit pool (agent_pools) equals the sum of its entries and matches its latest entry's balance_after,
  and no entry names a pool the agent does not have;
- every referrer's referral totals (referrals.rewarded_sats) equal its referral and reversal entries."""
from __future__ import annotations

from sqlalchemy import Engine, and_, func, literal, select

from .db import reading
from .tables import agent_pools, agents, ledger_entries, referrals


def check_consistency(engine: Engine) -> list[str]:
    """Human-readable problems; an empty list means the ledger is consistent."""
    with reading(engine) as conn:
        return _balances(conn) + _pools(conn) + _referrals(conn)


def _sums_by_pool():
    e = ledger_entries.c
    return (select(e.agent_id, e.pool, func.sum(e.amount_sats).label("total"), func.max(e.id).label("last_id"))
            .group_by(e.agent_id, e.pool).subquery())


def _balances(conn) -> list[str]:
    sums = _sums_by_pool()
    last = ledger_entries.alias("last_entry")
    query = (select(agents.c.agent_id, agents.c.balance_sats, sums.c.total, last.c.balance_after)
             .select_from(agents.outerjoin(sums, and_(sums.c.agent_id == agents.c.id, sums.c.pool == "balance"))
                          .outerjoin(last, last.c.id == sums.c.last_id))
             .order_by(agents.c.id))
    problems = []
    for row in conn.execute(query):
        total = int(row.total or 0)
        if row.balance_sats < 0:
            problems.append(f"{row.agent_id}: negative balance {row.balance_sats}")
        if row.balance_sats != total:
            problems.append(f"{row.agent_id}: balance {row.balance_sats} != sum of entries {total}")
        if row.balance_after is not None and row.balance_after != row.balance_sats:
            problems.append(f"{row.agent_id}: latest entry says {row.balance_after}, balance is {row.balance_sats}")
    return problems


def _pools(conn) -> list[str]:
    sums = _sums_by_pool()
    last = ledger_entries.alias("last_entry")
    p = agent_pools.c
    query = (select(agents.c.agent_id, p.pool, p.remaining_sats, sums.c.total, last.c.balance_after)
             .select_from(agent_pools.join(agents, agents.c.id == p.agent_id)
                          .outerjoin(sums, and_(sums.c.agent_id == p.agent_id, sums.c.pool == p.pool))
                          .outerjoin(last, last.c.id == sums.c.last_id))
             .order_by(agents.c.id, p.pool))
    problems = []
    for row in conn.execute(query):
        total = int(row.total or 0)
        if row.remaining_sats != total:
            problems.append(f"{row.agent_id}: pool {row.pool} holds {row.remaining_sats} != sum of entries {total}")
        if row.balance_after is not None and row.balance_after != row.remaining_sats:
            problems.append(f"{row.agent_id}: pool {row.pool}'s latest entry says {row.balance_after}, "
                            f"it holds {row.remaining_sats}")
    e = ledger_entries.c
    orphans = conn.execute(
        select(e.agent_id, e.pool, func.count()).select_from(
            ledger_entries.outerjoin(agent_pools, and_(p.agent_id == e.agent_id, p.pool == e.pool)))
        .where(e.pool != "balance", p.pool.is_(None)).group_by(e.agent_id, e.pool))
    problems += [f"agent {a}: {n} entries in pool {pool}, which it does not have" for a, pool, n in orphans]
    return problems


def _referrals(conn) -> list[str]:
    r, e = referrals.c, ledger_entries.c
    owed = (select(r.referrer_id.label("agent"), func.sum(r.rewarded_sats).label("rewarded"))
            .group_by(r.referrer_id).subquery())
    paid = (select(e.agent_id.label("agent"), func.sum(e.amount_sats).label("paid"))
            .where(e.kind.in_(("referral", "referral_reversal"))).group_by(e.agent_id).subquery())
    query = (select(agents.c.agent_id, func.coalesce(owed.c.rewarded, literal(0)),
                    func.coalesce(paid.c.paid, literal(0)))
             .select_from(agents.outerjoin(owed, owed.c.agent == agents.c.id)
                          .outerjoin(paid, paid.c.agent == agents.c.id)))
    return [f"{agent}: referral links say {rewarded} rewarded, referral entries sum to {total}"
            for agent, rewarded, total in conn.execute(query) if int(rewarded) != int(total)]
