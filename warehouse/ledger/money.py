"""Balance changes. Each one is a guarded UPDATE of the balance plus its ledger entry in the same
transaction, so concurrent requests cannot overspend and the entries always sum to the balance.
UNIQUE(kind, reference) on the entries is the last line of defence against applying a request id or a
payment hash twice: a duplicate insert rolls back the balance change with it."""
from __future__ import annotations

from sqlalchemy import Connection, Engine, select
from sqlalchemy.exc import IntegrityError

from .db import reading
from .tables import agents, invoices, ledger_entries, utcnow


class TopupRefused(ValueError):
    """The payment hash names no invoice this agent may credit: unknown, another agent's, or not a
    credit purchase. (An invoice already credited is not an error: credit_topup returns None.)"""


class Money:
    def __init__(self, engine: Engine):
        self.engine = engine

    def balance(self, agent_pk: int) -> int:
        with reading(self.engine) as conn:
            value = conn.scalar(select(agents.c.balance_sats).where(agents.c.id == agent_pk))
        if value is None:
            raise LookupError(f"no agent {agent_pk}")
        return int(value)

    def debit_for_query(self, agent_pk: int, price_sats: int, module: str, request_id: str) -> int | None:
        """Charge a query. Returns the new balance, or None when the balance is too low (nothing written).
        A repeated request_id charges nothing more and returns the current balance."""
        _require_sats(price_sats)
        try:
            with self.engine.begin() as conn:
                if _entry(conn, "query", request_id) is not None:
                    return _repeat_balance(conn, agent_pk, request_id)
                balance = _change_balance(conn, agent_pk, -price_sats)
                if balance is None:
                    return None
                _write_entry(conn, agent_pk, -price_sats, balance, "query", request_id, module)
                return balance
        except IntegrityError:
            # A concurrent duplicate won the race (PostgreSQL); our transaction rolled back whole.
            with reading(self.engine) as conn:
                return _repeat_balance(conn, agent_pk, request_id)

    def refund(self, agent_pk: int, request_id: str) -> bool:
        """Give back this agent's debit for request_id, once. False when there is none or it was refunded."""
        try:
            with self.engine.begin() as conn:
                debit = _entry(conn, "query", request_id)
                if debit is None or debit["agent_id"] != agent_pk or _entry(conn, "refund", request_id):
                    return False
                amount = -int(debit["amount_sats"])
                balance = _change_balance(conn, agent_pk, amount)
                _write_entry(conn, agent_pk, amount, balance, "refund", request_id, debit["module"])
                return True
        except IntegrityError:
            return False

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
                amount = int(claimed.amount_sats)
                balance = _change_balance(conn, agent_pk, amount)
                _write_entry(conn, agent_pk, amount, balance, "topup", payment_hash, None)
                return balance
        except IntegrityError:
            return None  # the ledger already holds a topup for this payment hash


def _require_sats(value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"sats must be a positive integer, got {value!r}")


def _entry(conn: Connection, kind: str, reference: str) -> dict | None:
    row = conn.execute(select(ledger_entries).where(ledger_entries.c.kind == kind,
                                                    ledger_entries.c.reference == reference)).mappings().first()
    return dict(row) if row else None


def _repeat_balance(conn: Connection, agent_pk: int, request_id: str) -> int:
    earlier = _entry(conn, "query", request_id)
    if earlier is not None and earlier["agent_id"] != agent_pk:
        raise ValueError(f"request id {request_id!r} was charged to another agent")
    return int(conn.scalar(select(agents.c.balance_sats).where(agents.c.id == agent_pk)))


def _change_balance(conn: Connection, agent_pk: int, delta: int) -> int | None:
    """Add delta to the balance unless that would take it below zero; the new balance or None."""
    statement = agents.update().where(agents.c.id == agent_pk)
    if delta < 0:
        statement = statement.where(agents.c.balance_sats >= -delta)
    row = conn.execute(statement.values(balance_sats=agents.c.balance_sats + delta)
                       .returning(agents.c.balance_sats)).first()
    return None if row is None else int(row.balance_sats)


def _write_entry(conn: Connection, agent_pk: int, amount: int, balance_after: int, kind: str,
                 reference: str, module: str | None) -> None:
    conn.execute(ledger_entries.insert().values(
        agent_id=agent_pk, amount_sats=amount, balance_after=balance_after, kind=kind,
        reference=reference, module=module, created_at=utcnow()))


def _explain_refusal(conn: Connection, agent_pk: int, payment_hash: str) -> None:
    """Raise unless the invoice simply was credited already."""
    row = conn.execute(select(invoices).where(invoices.c.payment_hash == payment_hash)).mappings().first()
    if row is None:
        raise TopupRefused(f"no invoice {payment_hash}")
    if row["purpose"] != "credit":
        raise TopupRefused(f"invoice {payment_hash} pays for a query, not a balance top-up")
    if row["agent_id"] is not None and row["agent_id"] != agent_pk:
        raise TopupRefused(f"invoice {payment_hash} belongs to another agent")
    # status == 'credited': the normal duplicate
