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

from sqlalchemy import Connection, Engine, bindparam, func, select

from .db import reading
from .entries import amount, move
from .tables import agent_pools, referrals

REFERRAL_PERCENT = 10  # the interface's referral reward

# Built once (see warehouse/ledger/entries.py): every debit and refund runs the first two.
_r = referrals.c
_ADD_BASIS = (referrals.update().where(_r.referred_id == bindparam("r_referred"))
              .values(basis_sats=_r.basis_sats + bindparam("r_price"))
              .returning(_r.referrer_id, _r.basis_sats, _r.rewarded_sats))
# Guarded: a debit from before the link counted nothing, so its refund must not go below zero.
_TAKE_BASIS = (referrals.update()
               .where(_r.referred_id == bindparam("r_referred"), _r.basis_sats >= bindparam("r_price"))
               .values(basis_sats=_r.basis_sats - bindparam("r_price"))
               .returning(_r.referrer_id, _r.basis_sats, _r.rewarded_sats))
_ADD_REWARDED = (referrals.update().where(_r.referred_id == bindparam("r_referred"))
                 .values(rewarded_sats=_r.rewarded_sats + bindparam("r_sats")))


def reward(conn: Connection, referred_pk: int, price: int, request_id: str) -> int:
    """Credit the referrer for a debit of `price` sats; returns the sats credited (0 without a referrer)."""
    link = conn.execute(_ADD_BASIS, {"r_referred": referred_pk, "r_price": price}).first()
    if link is None:
        return 0
    due = link.basis_sats * REFERRAL_PERCENT // 100 - link.rewarded_sats
    if due <= 0:
        return 0
    conn.execute(_ADD_REWARDED, {"r_referred": referred_pk, "r_sats": due})
    move(conn, link.referrer_id, "referral", due, "referral", request_id)
    return due


def reverse(conn: Connection, referred_pk: int, price: int, request_id: str) -> int:
    """Undo `reward` for a refunded debit of `price`; returns the sats taken back from the referrer."""
    link = conn.execute(_TAKE_BASIS, {"r_referred": referred_pk, "r_price": price}).first()
    if link is None:
        return 0
    excess = link.rewarded_sats - link.basis_sats * REFERRAL_PERCENT // 100
    take = min(excess, amount(conn, link.referrer_id, "referral"))
    if take <= 0:
        return 0
    if move(conn, link.referrer_id, "referral", -take, "referral_reversal", request_id) is None:
        return 0
    conn.execute(_ADD_REWARDED, {"r_referred": referred_pk, "r_sats": -take})
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
