"""Referral rewards: the referrer earns REFERRAL_PERCENT of the sats the referred agent spends per request,
as referral credits, written in the same transaction as that agent's debit.

Whole sats without losing or creating any: each link keeps `basis_sats` (the referred agent's rewarded spend
so far) and `rewarded_sats` (what the referrer got for it). A debit adds its price to the basis and credits
`floor(basis * percent / 100) - rewarded`, so the fractions are carried to the next request instead of
being rounded away each time: after any sequence of requests the referrer holds exactly the floor of 10% of
the total. Requests paid with referral credits earn nothing (those credits are rewards, not spend).

A refunded request takes its price back out of the basis and reverses the reward it caused, as far as the
referrer still has referral credits; a part already spent stays counted in `rewarded_sats`, so the next
rewards are smaller until it is made up."""
from __future__ import annotations

from sqlalchemy import Connection, Engine, func, select

from .db import reading
from .entries import amount, move
from .tables import agent_pools, referrals

REFERRAL_PERCENT = 10  # the interface's referral reward


def reward(conn: Connection, referred_pk: int, price: int, request_id: str) -> int:
    """Credit the referrer for a debit of `price` sats; returns the sats credited (0 without a referrer)."""
    r = referrals.c
    link = conn.execute(referrals.update().where(r.referred_id == referred_pk)
                        .values(basis_sats=r.basis_sats + price)
                        .returning(r.referrer_id, r.basis_sats, r.rewarded_sats)).first()
    if link is None:
        return 0
    due = link.basis_sats * REFERRAL_PERCENT // 100 - link.rewarded_sats
    if due <= 0:
        return 0
    conn.execute(referrals.update().where(r.referred_id == referred_pk).values(rewarded_sats=r.rewarded_sats + due))
    move(conn, link.referrer_id, "referral", due, "referral", request_id)
    return due


def reverse(conn: Connection, referred_pk: int, price: int, request_id: str) -> int:
    """Undo `reward` for a refunded debit of `price`; returns the sats taken back from the referrer."""
    r = referrals.c
    # Guarded: a debit from before the link counted nothing, so its refund must not go below zero.
    link = conn.execute(referrals.update().where(r.referred_id == referred_pk, r.basis_sats >= price)
                        .values(basis_sats=r.basis_sats - price)
                        .returning(r.referrer_id, r.basis_sats, r.rewarded_sats)).first()
    if link is None:
        return 0
    excess = link.rewarded_sats - link.basis_sats * REFERRAL_PERCENT // 100
    take = min(excess, amount(conn, link.referrer_id, "referral"))
    if take <= 0:
        return 0
    if move(conn, link.referrer_id, "referral", -take, "referral_reversal", request_id) is None:
        return 0
    conn.execute(referrals.update().where(r.referred_id == referred_pk).values(rewarded_sats=r.rewarded_sats - take))
    return take


class Referrals:
    def __init__(self, engine: Engine):
        self.engine = engine

    def stats(self, agent_pk: int) -> dict:
        r = referrals.c
        with reading(self.engine) as conn:
            referred, earned, spend = conn.execute(
                select(func.count(), func.coalesce(func.sum(r.rewarded_sats), 0),
                       func.coalesce(func.sum(r.basis_sats), 0)).where(r.referrer_id == agent_pk)).one()
            available = conn.scalar(select(agent_pools.c.remaining_sats).where(
                agent_pools.c.agent_id == agent_pk, agent_pools.c.pool == "referral"))
        return {"agents_referred": int(referred), "sats_earned": int(earned), "credits_available_sats": int(available),
                "referred_spend_sats": int(spend), "reward_percent": REFERRAL_PERCENT}
