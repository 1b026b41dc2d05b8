"""Balance and pool changes. Each one is a guarded UPDATE plus its ledger entry in the same transaction
(warehouse/ledger/entries.py), so concurrent requests cannot overspend and every pool's entries always sum
to it. UNIQUE(kind, reference) on the entries is the last line of defence against applying a request id or
a payment hash twice: a duplicate insert rolls back the change with it.

Which pool pays for a query (POOL_ORDER): the subscription allocation, then burst credits, then commitment
credits, then referral credits, then the balance. Credits that end soonest go first (the allocation ends
with the subscription period, burst credits are usable only while subscribed, commitment credits end with
their term, referral credits and the balance never end). A query is paid whole by the first pool that holds
its full price and is usable now; pools are never combined for one query. The choice and the debit are one
SQL transaction: each candidate is a guarded UPDATE, so the first one that matches is the one that paid.
A refund gives the sats back to the pool the debit came from, and reverses the referral reward it caused.

On PostgreSQL the common query debit, the balance paying for an agent with no credit pool able to pay and no
referrer, is first tried as ONE statement run on its own (autocommit): the guarded UPDATE and its entry's INSERT
in one data-modifying WITH, so one implicit transaction, and the agent's row is locked only while the server
runs it instead of across the client's round trips (which made one agent's concurrent queries queue on its row,
with each round trip waiting for a busy event loop). When it changes nothing (a pool or a referrer is involved,
the balance is short, or the agent is gone) the transaction above decides, as for every debit on SQLite.

Time ("now", for pool ends and tiers) comes from the `now` callable: wall-clock UTC by default, because paid
periods are real time even when the market clock replays history; tests pass a clock they move."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, Engine, String, bindparam, exists, literal, select, union_all
from sqlalchemy.exc import IntegrityError

from . import caps, referrals
from .caps import CapReached, DailyCapReached
from .db import reading
from .entries import amount, entry, forfeit_expired, has_forfeitable, move, pool_usable, require_sats
from .loop_writer import LoopWriter
from .tables import POOL_ORDER, agent_pools, agents, invoices, ledger_entries, utcnow
from .tables import referrals as referrals_table
from .tiers import TierPrice, claim_upgrade


class TopupRefused(ValueError):
    """The payment hash names no invoice this agent may credit: unknown, another agent's, or not a
    credit purchase. (An invoice already credited is not an error: credit_topup returns None.)"""


@dataclass(frozen=True)
class Debit:
    pool: str  # which pool paid (POOL_ORDER)
    pool_left_sats: int  # what is left in that pool
    balance_sats: int


class Money:
    def __init__(self, engine: Engine, now: Callable[[], datetime] = utcnow):
        self.engine = engine
        self.now = now
        self.loop_writer = LoopWriter(engine)
        self.one_statement_debit = engine.dialect.name == "postgresql"  # see the module's docstring

    def balance(self, agent_pk: int) -> int:
        with reading(self.engine) as conn:
            value = conn.scalar(select(agents.c.balance_sats).where(agents.c.id == agent_pk))
        if value is None:
            raise LookupError(f"no agent {agent_pk}")
        return int(value)

    def debit_for_query(self, agent_pk: int, price_sats: int, module: str, request_id: str,
                        capped: bool = False) -> Debit | None:
        """Charge a query to the first pool that covers it; None when none does (nothing written). A repeated
        request_id charges nothing more and reports the pool that paid the first time. `capped`: the agent has a
        daily spending cap (warehouse/ledger/caps.py), which DailyCapReached says the query would pass."""
        require_sats(price_sats)
        try:
            if self.one_statement_debit and not capped:
                with self.engine.connect() as conn:
                    conn.execution_options(isolation_level="AUTOCOMMIT")
                    paid = _balance_alone(conn, agent_pk, price_sats, module, request_id, self.now())
                if paid is not None:
                    return paid
            with self.engine.begin() as conn:
                paid = self._debit(conn, agent_pk, price_sats, module, request_id, capped)
        except IntegrityError:
            # The entry for this request_id exists (a repeat, or a concurrent duplicate that won the race):
            # our transaction rolled back whole, so nothing was charged twice.
            with reading(self.engine) as conn:
                return _charged_earlier(conn, agent_pk, request_id)
        return _paid_or_refused(paid)

    async def debit_for_query_async(self, agent_pk: int, price_sats: int, module: str,
                                    request_id: str, capped: bool = False) -> Debit | None:
        """`debit_for_query` for a coroutine: the same transaction, run without a thread (loop_writer.LoopWriter)."""
        require_sats(price_sats)
        try:
            if self.one_statement_debit and not capped:
                paid = await self.loop_writer.autocommit(_balance_alone, agent_pk, price_sats, module, request_id,
                                                         self.now())
                if paid is not None:
                    return paid
            paid = await self.loop_writer.write(self._debit, agent_pk, price_sats, module, request_id, capped)
        except IntegrityError:  # as in debit_for_query
            return await self.loop_writer.read(_charged_earlier, agent_pk, request_id)
        return _paid_or_refused(paid)

    def _debit(self, conn: Connection, agent_pk: int, price_sats: int, module: str, request_id: str,
               capped: bool = False) -> Debit | CapReached | None:
        now = self.now()
        if capped:
            reached = caps.check_cap(conn, agent_pk, price_sats, now)
            if reached is not None:  # but a retry of a request charged earlier reports that charge
                return _charged_earlier(conn, agent_pk, request_id) or reached
        # Only pools that look able to pay get a guarded UPDATE (most agents have none but the balance): fewer
        # statements while the row is locked. The guard still decides; a pool emptied by a racing request
        # since this read simply fails its UPDATE and the next one is tried.
        # A repeated request_id is caught by UNIQUE(kind, reference) on the entry (IntegrityError).
        pools, referred = _candidates(conn, agent_pk, price_sats, now)
        for pool in pools:
            left = move(conn, agent_pk, pool, -price_sats, "query", request_id, module, usable_at=now)
            if left is None:
                continue
            if pool != "referral" and referred:
                referrals.reward(conn, agent_pk, price_sats, request_id)
            if capped:
                caps.count(conn, agent_pk, price_sats, now)
            return Debit(pool, left, left if pool == "balance" else amount(conn, agent_pk, "balance"))
        # nothing could pay: still a repeat of a request that was charged earlier reports that charge
        return _charged_earlier(conn, agent_pk, request_id)

    def refund(self, agent_pk: int, request_id: str) -> bool:
        """Give this agent's debit for request_id back to the pool it came from, once. False when there is
        none or it was refunded already."""
        try:
            with self.engine.begin() as conn:
                return _refund(conn, agent_pk, request_id)
        except IntegrityError:
            return False

    async def refund_async(self, agent_pk: int, request_id: str) -> bool:
        """`refund` for a coroutine: the same transaction, run without a thread (loop_writer.LoopWriter)."""
        try:
            return await self.loop_writer.write(_refund, agent_pk, request_id)
        except IntegrityError:
            return False

    async def aclose(self) -> None:
        """Close the connections the coroutine methods opened."""
        await self.loop_writer.aclose()

    def credit_topup(self, agent_pk: int, payment_hash: str) -> int | None:
        """Credit a paid invoice's amount to the agent, exactly once. Returns the new balance, or None when
        the invoice was already credited. Raises TopupRefused for an invoice this agent cannot credit.
        The caller checks the payment itself (preimage or the node) before calling."""
        inv = invoices.c
        try:
            with self.engine.begin() as conn:
                # The status flip is the once-only gate: a racing duplicate matches no row here (on
                # PostgreSQL it waits for our row lock, then re-checks the status).
                claimed = conn.execute(
                    invoices.update()
                    .where(inv.payment_hash == payment_hash, inv.status != "credited", inv.purpose == "credit",
                           (inv.agent_id.is_(None)) | (inv.agent_id == agent_pk))
                    .values(status="credited", credited_at=utcnow(), agent_id=agent_pk)
                    .returning(inv.amount_sats)
                ).first()
                if claimed is None:
                    _explain_refusal(conn, agent_pk, payment_hash)
                    return None
                return move(conn, agent_pk, "balance", int(claimed.amount_sats), "topup", payment_hash)
        except IntegrityError:
            return None  # the ledger already holds a topup for this payment hash

    def claim_upgrade(self, agent_pk: int, payment_hash: str, prices: dict[str, TierPrice]) -> dict | None:
        """Apply a paid tier-upgrade invoice once (rules in warehouse/ledger/tiers.py). None when it was
        claimed already; raises UpgradeRefused for an invoice this agent cannot claim."""
        try:
            with self.engine.begin() as conn:
                return claim_upgrade(conn, agent_pk, payment_hash, prices, self.now())
        except IntegrityError:
            return None

    def pools(self, agent_pk: int) -> list[dict]:
        """Every pool in payment order: what it holds, until when it is usable, and whether it is now. Ended
        allocation and commitment credits are written off first (an `expiry` entry), so what is shown is
        what the ledger says."""
        now = self.now()
        with reading(self.engine) as conn:
            stale = has_forfeitable(conn, agent_pk, now)
        if stale:
            with self.engine.begin() as conn:
                forfeit_expired(conn, agent_pk, now)
        with reading(self.engine) as conn:
            rows = {r.pool: r for r in conn.execute(select(agent_pools).where(agent_pools.c.agent_id == agent_pk))}
            balance = amount(conn, agent_pk, "balance")
        shown = []
        for pool in POOL_ORDER:
            if pool == "balance":
                shown.append({"pool": pool, "remaining_sats": balance, "usable_until": None, "usable": True})
                continue
            row = rows[pool]
            usable = row.usable_until is None or row.usable_until > now
            shown.append({"pool": pool, "remaining_sats": int(row.remaining_sats),
                          "usable_until": row.usable_until, "usable": usable})
        return shown


_p = agent_pools.c
_REFERRED = "(referred)"  # not a pool name: the agent has a referrer
_ABLE_POOLS = union_all(
    select(_p.pool).where(_p.agent_id == bindparam("m_agent"), _p.remaining_sats >= bindparam("m_price"),
                          pool_usable(bindparam("m_now"))),
    select(literal(_REFERRED, String)).where(referrals_table.c.referred_id == bindparam("m_agent")))


def _candidates(conn: Connection, agent_pk: int, price_sats: int, now: datetime) -> tuple[list[str], bool]:
    """The pools in POOL_ORDER that hold the price and are usable now, then the balance (always tried); and
    whether the agent has a referrer. That is read here, with the pools, so that most debits (agents nobody
    referred) skip the referral statement while the agent's row is locked: a referral link is made with its
    agent, at registration, and never changes."""
    able = set(conn.scalars(_ABLE_POOLS, {"m_agent": agent_pk, "m_price": price_sats, "m_now": now}))
    return [pool for pool in POOL_ORDER if pool in able or pool == "balance"], _REFERRED in able


def _balance_alone_statement():
    """PostgreSQL only (SQLite has no data-modifying WITH): see the module's docstring. The guard is the
    transaction's: enough balance, no credit pool that holds the price and is usable now (it would pay first),
    no referrer (the reward belongs in the same transaction)."""
    a, r, e = agents.c, referrals_table.c, ledger_entries.c
    able_pool = exists().where(_p.agent_id == bindparam("f_agent"), _p.remaining_sats >= bindparam("f_price"),
                               pool_usable(bindparam("f_now")))
    referred = exists().where(r.referred_id == bindparam("f_agent"))
    debited = (agents.update()
               .where(a.id == bindparam("f_agent"), a.balance_sats >= bindparam("f_price"), ~able_pool, ~referred)
               .values(balance_sats=a.balance_sats - bindparam("f_price"))
               .returning(a.balance_sats).cte("debited"))
    entry_values = select(bindparam("f_agent", type_=e.agent_id.type), literal("balance", e.pool.type),
                          -bindparam("f_price", type_=e.amount_sats.type), debited.c.balance_sats,
                          literal("query", e.kind.type), bindparam("f_reference", type_=e.reference.type),
                          bindparam("f_module", type_=e.module.type), bindparam("f_created", type_=e.created_at.type))
    return (ledger_entries.insert()
            .from_select(["agent_id", "pool", "amount_sats", "balance_after", "kind", "reference", "module",
                          "created_at"], entry_values)
            .returning(e.balance_after))


_BALANCE_ALONE = _balance_alone_statement()


def _balance_alone(conn: Connection, agent_pk: int, price_sats: int, module: str, request_id: str,
                   now: datetime) -> Debit | None:
    left = conn.scalar(_BALANCE_ALONE, {"f_agent": agent_pk, "f_price": price_sats, "f_reference": request_id,
                                        "f_module": module, "f_now": now, "f_created": utcnow()})
    return None if left is None else Debit("balance", int(left), int(left))


def _refund(conn: Connection, agent_pk: int, request_id: str) -> bool:
    debit = entry(conn, "query", request_id)
    if debit is None or debit["agent_id"] != agent_pk or entry(conn, "refund", request_id):
        return False
    price = -int(debit["amount_sats"])
    move(conn, agent_pk, debit["pool"], price, "refund", request_id, debit["module"])
    caps.give_back(conn, agent_pk, price, debit["created_at"])
    if debit["pool"] != "referral":
        referrals.reverse(conn, agent_pk, price, request_id)
    return True


def _paid_or_refused(paid: Debit | CapReached | None) -> Debit | None:
    if isinstance(paid, CapReached):  # raised after the transaction: the day's first count of the cap is kept
        raise DailyCapReached(paid)
    return paid


def _charged_earlier(conn: Connection, agent_pk: int, request_id: str) -> Debit | None:
    return _repeat(conn, agent_pk, entry(conn, "query", request_id))


def _repeat(conn: Connection, agent_pk: int, earlier: dict | None) -> Debit | None:
    if earlier is None:
        return None
    if earlier["agent_id"] != agent_pk:
        raise ValueError(f"request id {earlier['reference']!r} was charged to another agent")
    pool = earlier["pool"]
    return Debit(pool, amount(conn, agent_pk, pool), amount(conn, agent_pk, "balance"))


def _explain_refusal(conn: Connection, agent_pk: int, payment_hash: str) -> None:
    """Raise unless the invoice simply was credited already."""
    row = conn.execute(select(invoices).where(invoices.c.payment_hash == payment_hash)).mappings().first()
    if row is None:
        raise TopupRefused(f"no invoice {payment_hash}")
    if row["purpose"] != "credit":
        raise TopupRefused(f"invoice {payment_hash} is not a balance top-up")
    if row["agent_id"] is not None and row["agent_id"] != agent_pk:
        raise TopupRefused(f"invoice {payment_hash} belongs to another agent")
    # status == 'credited': the normal duplicate
