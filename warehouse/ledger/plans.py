"""Commitment and subscription plans, paid from the balance; each purchase and the credits it grants are one
transaction (a `purchase` entry on the balance, `grant` entries on the pools).

Commitment: prepaid query credits at a discount. Activating plan P debits P's price, which is its credits
less its discount (20-40%, rounded down), and adds P's credits to the `commitment` pool, usable for the
plan's term from now. Activating again while credits remain adds the new credits and extends the whole pool
to the later end. Credits left when the term ends are forfeited (an `expiry` entry).

Subscription: a base allocation per period plus burst credits. Subscribing debits the plan's price and
starts a period of `period_days`; the allocation goes into the `subscription` pool and the burst credits
into the `burst` pool, both usable until the period ends. Subscribing to the same plan while subscribed
renews it: the end moves one period later and the plan's allocation and burst credits are added. Another
plan can be chosen once the current one has ended. When the subscription ends, unused allocation is
forfeited; burst credits are kept but usable only while subscribed again (so they carry across renewals).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, func, select

from .db import reading
from .entries import amount, forfeit_expired, lock_agent, move
from .tables import agent_pools, commitments, subscriptions, utcnow

COMMITMENT_DISCOUNT_RANGE = (20, 40)  # percent, from the interface


class PlanRefused(ValueError):
    """The plan cannot be bought now; `code` says why (insufficient_balance, plan_change_not_allowed)."""

    def __init__(self, code: str, message: str, **details):
        super().__init__(message)
        self.code, self.details = code, details


@dataclass(frozen=True)
class CommitmentPlan:
    name: str
    credits_sats: int
    discount_percent: int
    term_days: int

    @property
    def price_sats(self) -> int:
        return self.credits_sats * (100 - self.discount_percent) // 100  # rounded down, in the agent's favour


@dataclass(frozen=True)
class SubscriptionPlan:
    name: str
    price_sats: int
    period_days: int
    allocation_sats: int
    burst_sats: int


def commitment_plans(config: Mapping[str, Mapping[str, int]]) -> dict[str, CommitmentPlan]:
    plans = {name: CommitmentPlan(name, **_ints(name, terms)) for name, terms in config.items()}
    low, high = COMMITMENT_DISCOUNT_RANGE
    for plan in plans.values():
        if not low <= plan.discount_percent <= high or plan.credits_sats <= 0 or plan.term_days <= 0:
            raise ValueError(f"commitment plan {plan.name!r}: discount must be {low}-{high}%, credits and term > 0")
    return plans


def subscription_plans(config: Mapping[str, Mapping[str, int]]) -> dict[str, SubscriptionPlan]:
    plans = {name: SubscriptionPlan(name, **_ints(name, terms)) for name, terms in config.items()}
    for plan in plans.values():
        if plan.price_sats <= 0 or plan.period_days <= 0 or plan.allocation_sats < 0 or plan.burst_sats < 0:
            raise ValueError(f"subscription plan {plan.name!r}: price and period must be > 0")
    return plans


def _ints(name: str, terms: Mapping[str, int]) -> dict[str, int]:
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in terms.values()):
        raise ValueError(f"plan {name!r}: every amount must be an integer")
    return dict(terms)


class Plans:
    def __init__(self, engine: Engine, commitments_: dict[str, CommitmentPlan],
                 subscriptions_: dict[str, SubscriptionPlan], now: Callable[[], datetime] = utcnow):
        self.engine = engine
        self.commitments = commitments_
        self.subscriptions = subscriptions_
        self.now = now

    def activate_commitment(self, agent_pk: int, plan_name: str, reference: str) -> dict:
        """Buy a commitment from the balance; `reference` (unique, e.g. the request id) names the purchase."""
        plan = self.commitments[plan_name]
        with self.engine.begin() as conn:
            now = self.now()
            lock_agent(conn, agent_pk)
            forfeit_expired(conn, agent_pk, now)
            balance = _pay(conn, agent_pk, plan.price_sats, reference)
            until = conn.scalar(select(agent_pools.c.usable_until).where(
                agent_pools.c.agent_id == agent_pk, agent_pools.c.pool == "commitment"))
            end = now + timedelta(days=plan.term_days)
            end = max(end, until) if until is not None and until > now else end
            left = move(conn, agent_pk, "commitment", plan.credits_sats, "grant", f"{reference}:commitment",
                        usable_until=end)
            conn.execute(commitments.insert().values(
                agent_id=agent_pk, plan=plan.name, credits_sats=plan.credits_sats, price_sats=plan.price_sats,
                discount_percent=plan.discount_percent, activated_at=now, expires_at=end, reference=reference))
        return {"plan": plan.name, "paid_sats": plan.price_sats, "credits_added_sats": plan.credits_sats,
                "credits_sats": left, "usable_until": end, "balance_sats": balance}

    def commitment_status(self, agent_pk: int) -> dict:
        c = commitments.c
        now = self.now()
        with reading(self.engine) as conn:
            pool = conn.execute(select(agent_pools).where(agent_pools.c.agent_id == agent_pk,
                                                          agent_pools.c.pool == "commitment")).mappings().one()
            history = conn.execute(select(commitments).where(c.agent_id == agent_pk)
                                   .order_by(c.id.desc()).limit(20)).mappings().all()
            bought, paid = conn.execute(select(func.coalesce(func.sum(c.credits_sats), 0),
                                               func.coalesce(func.sum(c.price_sats), 0))
                                        .where(c.agent_id == agent_pk)).one()
        active = pool["usable_until"] is not None and pool["usable_until"] > now and pool["remaining_sats"] > 0
        return {"active": active, "credits_remaining_sats": int(pool["remaining_sats"]) if active else 0,
                "usable_until": pool["usable_until"] if active else None,
                "credits_bought_sats": int(bought), "paid_sats": int(paid),
                "activations": [{k: h[k] for k in ("plan", "credits_sats", "price_sats", "discount_percent",
                                                   "activated_at", "expires_at")} for h in history]}

    def subscribe(self, agent_pk: int, plan_name: str, reference: str) -> dict:
        """Start or renew a subscription from the balance (rules in the module docstring)."""
        plan = self.subscriptions[plan_name]
        s = subscriptions.c
        with self.engine.begin() as conn:
            now = self.now()
            lock_agent(conn, agent_pk)
            current = conn.execute(select(subscriptions).where(s.agent_id == agent_pk)).mappings().first()
            active = current is not None and current["ends_at"] > now
            if active and current["plan"] != plan.name:
                raise PlanRefused("plan_change_not_allowed",
                                  f"Your '{current['plan']}' subscription runs until {current['ends_at'].isoformat()}; "
                                  "subscribe to another plan after it ends.", ends_at=current["ends_at"].isoformat())
            forfeit_expired(conn, agent_pk, now)
            balance = _pay(conn, agent_pk, plan.price_sats, reference)
            period = timedelta(days=plan.period_days)
            if active:
                values = {"ends_at": current["ends_at"] + period, "periods_paid": current["periods_paid"] + 1}
                conn.execute(subscriptions.update().where(s.agent_id == agent_pk).values(**values))
                started = current["started_at"]
            else:
                started = now
                values = {"plan": plan.name, "started_at": now, "ends_at": now + period, "periods_paid": 1}
                if current is None:
                    conn.execute(subscriptions.insert().values(agent_id=agent_pk, **values))
                else:
                    conn.execute(subscriptions.update().where(s.agent_id == agent_pk).values(**values))
            end = values["ends_at"]
            for pool, credits in (("subscription", plan.allocation_sats), ("burst", plan.burst_sats)):
                if credits:
                    move(conn, agent_pk, pool, credits, "grant", f"{reference}:{pool}", usable_until=end)
                else:  # still align the pool's end with the subscription
                    conn.execute(agent_pools.update().where(agent_pools.c.agent_id == agent_pk,
                                                            agent_pools.c.pool == pool).values(usable_until=end))
        return {"plan": plan.name, "paid_sats": plan.price_sats, "renewed": active, "started_at": started,
                "ends_at": end, "balance_sats": balance, **self._credits(agent_pk, now)}

    def subscription_status(self, agent_pk: int) -> dict:
        now = self.now()
        with reading(self.engine) as conn:
            current = conn.execute(select(subscriptions).where(subscriptions.c.agent_id == agent_pk)).mappings().first()
        if current is None:
            return {"active": False, "plan": None, **self._credits(agent_pk, now)}
        plan = self.subscriptions.get(current["plan"])
        return {"active": current["ends_at"] > now, "plan": current["plan"], "started_at": current["started_at"],
                "ends_at": current["ends_at"], "periods_paid": current["periods_paid"],
                "terms": asdict(plan) if plan else None, **self._credits(agent_pk, now)}

    def _credits(self, agent_pk: int, now: datetime) -> dict:
        p = agent_pools.c
        with reading(self.engine) as conn:
            rows = {r.pool: r for r in conn.execute(select(agent_pools).where(
                p.agent_id == agent_pk, p.pool.in_(("subscription", "burst"))))}
        shown = {}
        for pool, label in (("subscription", "allocation"), ("burst", "burst_credits")):
            row = rows[pool]
            usable = row.usable_until is not None and row.usable_until > now
            shown[label] = {"remaining_sats": int(row.remaining_sats) if usable or pool == "burst" else 0,
                            "usable": usable, "usable_until": row.usable_until}
        return shown


def _pay(conn, agent_pk: int, price: int, reference: str) -> int:
    balance = move(conn, agent_pk, "balance", -price, "purchase", reference)
    if balance is None:
        raise PlanRefused("insufficient_balance", f"The plan costs {price} sats; top up the balance first.",
                          price_sats=price, balance_sats=amount(conn, agent_pk, "balance"))
    return balance
