"""L402 tokens: the per-token root keys, looked up by the SHA-256 of the macaroon identifier, and the
once-only spend of a per-request token. The spend is a guarded UPDATE (`... AND spent_at IS NULL`): of two
racing requests with the same token exactly one matches the row (on PostgreSQL the second waits for the
first's row lock, then re-checks the condition; on SQLite writers queue on BEGIN IMMEDIATE)."""
from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine, select

from .db import reading
from .tables import invoices, l402_tokens, utcnow


class Tokens:
    def __init__(self, engine: Engine):
        self.engine = engine

    def insert(self, identifier_hash: str, root_key: str, payment_hash: str, scope: str, price_sats: int,
               expires_at: datetime | int | float) -> None:
        """Store a freshly minted token (unspent). expires_at: aware datetime or epoch seconds."""
        if not isinstance(expires_at, datetime):
            expires_at = datetime.fromtimestamp(expires_at, tz=UTC)
        with self.engine.begin() as conn:
            conn.execute(l402_tokens.insert().values(
                identifier_hash=identifier_hash, root_key=root_key, payment_hash=payment_hash, scope=scope,
                price_sats=price_sats, created_at=utcnow(), expires_at=expires_at))

    def get(self, identifier_hash: str) -> dict | None:
        with reading(self.engine) as conn:
            row = conn.execute(select(l402_tokens).where(l402_tokens.c.identifier_hash == identifier_hash)
                               ).mappings().first()
        return dict(row) if row else None

    def with_invoice(self, identifier_hash: str) -> dict | None:
        """The token with its invoice's `bolt11` and `invoice_expires_at` (what an MPP challenge was built from)."""
        with reading(self.engine) as conn:
            row = conn.execute(select(l402_tokens, invoices.c.bolt11, invoices.c.expires_at.label("invoice_expires_at"))
                               .join(invoices, invoices.c.payment_hash == l402_tokens.c.payment_hash)
                               .where(l402_tokens.c.identifier_hash == identifier_hash)).mappings().first()
        return dict(row) if row else None

    def spend(self, identifier_hash: str, request_id: str) -> bool:
        """Mark the token used by request_id; False when it was already spent (or is unknown). The token's
        invoice is marked settled in the same transaction: the preimage the caller showed proves payment."""
        tok = l402_tokens.c
        with self.engine.begin() as conn:
            payment_hash = conn.execute(
                l402_tokens.update()
                .where(tok.identifier_hash == identifier_hash, tok.spent_at.is_(None))
                .values(spent_at=utcnow(), spent_by=request_id)
                .returning(tok.payment_hash)
            ).scalar()
            if payment_hash is None:
                return False
            conn.execute(invoices.update()
                         .where(invoices.c.payment_hash == payment_hash, invoices.c.status == "open")
                         .values(status="settled"))
            return True

    def settle_invoice(self, payment_hash: str) -> bool:
        """Mark a pass's invoice settled (a pass is never spent: its first admitted request proves the payment);
        True when it was open until now."""
        with self.engine.begin() as conn:
            return conn.execute(invoices.update()
                                .where(invoices.c.payment_hash == payment_hash, invoices.c.status == "open")
                                .values(status="settled")).rowcount == 1

    def unspend(self, identifier_hash: str, request_id: str) -> bool:
        """Give the token back after the request that spent it failed. Only that request can: a token spent
        by another request stays spent."""
        tok = l402_tokens.c
        with self.engine.begin() as conn:
            result = conn.execute(l402_tokens.update()
                                  .where(tok.identifier_hash == identifier_hash, tok.spent_by == request_id)
                                  .values(spent_at=None, spent_by=None))
            return result.rowcount == 1
