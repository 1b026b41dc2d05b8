"""Paid tiers: the effective tier of an agent at a moment, and claiming a paid `upgrade` invoice.

Rules (prices and durations come from the settings, see TierPrice):
- The effective tier is the stored one until `tier_expires_at`, then `free`; NULL means no end.
- Paying for the tier that is active extends it: the new end is the old end plus the duration.
- Paying for a higher tier starts it now for its duration; the unused time of the lower tier is converted at
  the two tiers' prices per second and added, so no paid time is lost.
- Paying for a lower tier than the active one (possible when a higher one was bought after the invoice was
  made) cannot be applied without losing time: the sats are credited to the balance instead.
- The money: the invoice's sats are one `upgrade_payment` entry (+amount, received over Lightning) and one
  `upgrade` entry (-amount, spent on the tier), both on the balance with the payment hash as reference, so
  the balance is unchanged, entries still sum to it, and the ledger keeps what the tier earned. The invoice's
  status flip to `credited` in the same transaction is the once-only gate.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, select

from .entries import lock_agent, move
from .tables import agents, invoices, utcnow

RANK = {"free": 0, "premium": 1, "institutional": 2}


class UpgradeRefused(ValueError):
    """The payment hash names no upgrade invoice this agent may claim."""


@dataclass(frozen=True)
class TierPrice:
    price_sats: int
    duration: timedelta


def effective_tier(tier: str, expires_at: datetime | None, now: datetime) -> str:
    if tier != "free" and expires_at is not None and expires_at <= now:
        return "free"
    return tier


def claim_upgrade(conn: Connection, agent_pk: int, payment_hash: str, prices: dict[str, TierPrice],
                  now: datetime) -> dict | None:
    """Apply a paid upgrade invoice once (the caller has checked the payment). None when it was claimed
    already; raises UpgradeRefused for an invoice this agent cannot claim."""
    inv = invoices.c
    claimed = conn.execute(
        invoices.update()
        .where(inv.payment_hash == payment_hash, inv.status != "credited", inv.purpose == "upgrade",
               (inv.agent_id.is_(None)) | (inv.agent_id == agent_pk))
        .values(status="credited", credited_at=utcnow(), agent_id=agent_pk)
        .returning(inv.amount_sats, inv.tier)
    ).first()
    if claimed is None:
        _explain_refusal(conn, agent_pk, payment_hash)
        return None
    paid, tier = int(claimed.amount_sats), claimed.tier
    row = lock_agent(conn, agent_pk)
    current = effective_tier(row["tier"], row["tier_expires_at"], now)
    if RANK[tier] < RANK[current] or (tier == current and row["tier_expires_at"] is None):
        balance = move(conn, agent_pk, "balance", paid, "topup", payment_hash)
        return {"tier": current, "tier_expires_at": row["tier_expires_at"] if current != "free" else None,
                "paid_sats": paid, "credited_to_balance_sats": paid, "balance_sats": balance}
    if tier == current:
        expires = row["tier_expires_at"] + prices[tier].duration
    else:
        expires = now + prices[tier].duration + _converted(current, row["tier_expires_at"], tier, prices, now)
    move(conn, agent_pk, "balance", paid, "upgrade_payment", payment_hash)
    balance = move(conn, agent_pk, "balance", -paid, "upgrade", payment_hash)
    conn.execute(agents.update().where(agents.c.id == agent_pk).values(tier=tier, tier_expires_at=expires))
    return {"tier": tier, "tier_expires_at": expires, "previous_tier": current, "paid_sats": paid,
            "credited_to_balance_sats": 0, "balance_sats": balance}


def _converted(current: str, current_end: datetime | None, tier: str, prices: dict[str, TierPrice],
               now: datetime) -> timedelta:
    """The unused time of the current paid tier, as time at `tier` of the same value (whole seconds, down)."""
    if current == "free" or current_end is None or current not in prices:
        return timedelta(0)
    left_s = int((current_end - now).total_seconds())
    old, new = prices[current], prices[tier]
    # value per second is price / duration; integer arithmetic keeps it exact before the final floor
    seconds = (left_s * old.price_sats * int(new.duration.total_seconds())
               // (int(old.duration.total_seconds()) * new.price_sats))
    return timedelta(seconds=max(0, seconds))


def _explain_refusal(conn: Connection, agent_pk: int, payment_hash: str) -> None:
    """Raise unless the invoice simply was claimed already."""
    row = conn.execute(select(invoices).where(invoices.c.payment_hash == payment_hash)).mappings().first()
    if row is None:
        raise UpgradeRefused(f"no invoice {payment_hash}")
    if row["purpose"] != "upgrade":
        raise UpgradeRefused(f"invoice {payment_hash} is not a tier upgrade")
    if row["agent_id"] is not None and row["agent_id"] != agent_pk:
        raise UpgradeRefused(f"invoice {payment_hash} belongs to another agent")
