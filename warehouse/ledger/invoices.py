"""Lightning invoices the service issued: balance top-ups (purpose credit), per-request L402 payments
(purpose query) and tier upgrades (purpose upgrade). Crediting a top-up (Money.credit_topup) or claiming an
upgrade (Money.claim_upgrade) flips the status in the same transaction as the sats it moves."""
from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine, select

from .db import reading
from .tables import INVOICE_PURPOSES, invoices, utcnow


class Invoices:
    def __init__(self, engine: Engine):
        self.engine = engine

    def record(self, payment_hash: str, bolt11: str, amount_sats: int, purpose: str,
               expires_at: datetime | int | float, agent_pk: int | None = None,
               module: str | None = None, tier: str | None = None) -> None:
        """Store a freshly issued invoice (status open). expires_at: aware datetime or epoch seconds. An
        `upgrade` invoice names the tier it pays for."""
        if purpose not in INVOICE_PURPOSES:
            raise ValueError(f"purpose must be one of {INVOICE_PURPOSES}, got {purpose!r}")
        if not isinstance(amount_sats, int) or isinstance(amount_sats, bool) or amount_sats <= 0:
            raise ValueError(f"amount_sats must be a positive integer, got {amount_sats!r}")
        if not isinstance(expires_at, datetime):
            expires_at = datetime.fromtimestamp(expires_at, tz=UTC)
        with self.engine.begin() as conn:
            conn.execute(invoices.insert().values(
                payment_hash=payment_hash, bolt11=bolt11, amount_sats=amount_sats, purpose=purpose,
                module=module, agent_id=agent_pk, status="open", created_at=utcnow(), expires_at=expires_at,
                tier=tier))

    def get(self, payment_hash: str) -> dict | None:
        with reading(self.engine) as conn:
            row = conn.execute(select(invoices).where(invoices.c.payment_hash == payment_hash)).mappings().first()
        return dict(row) if row else None

    def mark_settled(self, payment_hash: str) -> None:
        """open -> settled; never moves a credited invoice back."""
        with self.engine.begin() as conn:
            conn.execute(invoices.update()
                         .where(invoices.c.payment_hash == payment_hash, invoices.c.status == "open")
                         .values(status="settled"))
