"""Commitment and subscription plans: list, buy from the balance, status. The rules live with the money in
warehouse/ledger/plans.py; the docstrings here are the OpenAPI descriptions."""
from __future__ import annotations

import asyncio
from dataclasses import asdict
from datetime import timedelta

from api import response_docs_routes as r
from api.errors import APIError, invalid
from api.middleware import require_agent
from api.money_schemas import PlanBody
from api.payment_errors import TOPUP, uncharged_meta
from api.services import Services
from api.spec import Documented, api_spec
from charging.prices import MODULE_PRICES
from marketintel.settings import Settings
from warehouse.ledger import PlanRefused, Plans, TierPrice
from warehouse.ledger.tables import POOL_ORDER

POOL_NAMES = {"subscription": "subscription allocation", "burst": "burst credits",
              "commitment": "commitment credits", "referral": "referral credits", "balance": "balance"}
POOL_ORDER_TEXT = ("After the free query of the day, a query is paid whole by the first of these that holds its "
                   f"full price and is usable now: {', '.join(POOL_NAMES[p] for p in POOL_ORDER)}. "
                   "A failed request's sats go back to the pool that paid.")


def tier_prices(settings: Settings) -> dict[str, TierPrice]:
    """The paid tiers' prices and durations (MI_TIER_*)."""
    return {"premium": TierPrice(settings.tier_premium_price_sats, timedelta(days=settings.tier_premium_days)),
            "institutional": TierPrice(settings.tier_institutional_price_sats,
                                       timedelta(days=settings.tier_institutional_days))}


def commitment_listing(plans: Plans) -> list[dict]:
    return [{**asdict(p), "price_sats": p.price_sats,
             "standard_queries": p.credits_sats // MODULE_PRICES["S"],
             "proprietary_queries": p.credits_sats // MODULE_PRICES["P"]}
            for p in plans.commitments.values()]


def subscription_listing(plans: Plans) -> list[dict]:
    return [asdict(p) for p in plans.subscriptions.values()]


class _PlanRoute:
    def __init__(self, plans: Plans, services: Services):
        self.plans = plans
        self.services = services

    async def refused(self, req, exc: PlanRefused, plan: str) -> APIError:
        if exc.code != "insufficient_balance":
            return APIError(409, exc.code, str(exc), **exc.details)
        # a 402 says how to pay: an invoice for what the balance lacks, credited by POST /api/v1/agents/topup
        short = exc.details["price_sats"] - exc.details["balance_sats"]
        invoice = await self.services.charging.challenges.credit_invoice(
            req.context.payer, f"plan:{plan}", short, f"marketintel: top-up for the {plan} plan ({short} sats)")
        meta = uncharged_meta(self.services.data_source, self.services.simulated, exc.details["price_sats"],
                           req.context.request_id)
        return APIError(402, exc.code, f"{exc} The invoice is for the {short} sats missing.", meta=meta,
                        **exc.details, shortfall_sats=short, invoice=invoice, topup=TOPUP)


    async def _buy(self, req, kind: str, offered: dict, buy) -> dict:
        """The plan named in the body, paid from the balance by `buy` (its ledger reference `<kind>:<request id>`);
        422 for a plan not `offered`, a refusal as the 402 or 409 it is."""
        agent = require_agent(req)
        name = req.context.json.plan
        if name not in offered:
            raise invalid(["body", "plan"], f"unknown {kind} plan; one of {sorted(offered)}")
        try:
            return await asyncio.to_thread(buy, agent["id"], name, f"{kind}:{req.context.request_id}")
        except PlanRefused as exc:
            raise await self.refused(req, exc, name) from exc


class CommitmentPlansResource(_PlanRoute):
    @api_spec.validate(tags=["plans"], resp=Documented("HTTP_401", HTTP_200=r.CommitmentPlans))
    async def on_get(self, req, resp):
        """Volume commitments: prepaid query credits at a 20-40% discount.

        Each plan sells `credits_sats` of query credits for `price_sats` (the credits less `discount_percent`,
        rounded down) from your balance. The credits go into your `commitment` pool and pay for module queries
        at their normal prices for `term_days` from activation; what is left at the end is forfeited.
        Activating again adds the credits and extends the whole pool to the later end."""
        require_agent(req)
        resp.media = {"plans": commitment_listing(self.plans), "pool_order": POOL_ORDER_TEXT,
                      "activate": {"method": "POST", "path": "/api/v1/commitments/activate", "body": {"plan": "name"}}}


class CommitmentActivateResource(_PlanRoute):
    @api_spec.validate(json=PlanBody, tags=["plans"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_422", HTTP_200=r.CommitmentActivated))
    async def on_post(self, req, resp):
        """Activate a commitment plan (`{"plan": "starter"}`), paid from the balance in the same transaction
        that adds the credits: either both happen or neither. 402 `insufficient_balance` when the balance is
        below the price (nothing is charged); 422 for an unknown plan."""
        resp.media = await self._buy(req, "commitment", self.plans.commitments, self.plans.activate_commitment)


class CommitmentStatusResource(_PlanRoute):
    @api_spec.validate(tags=["plans"], resp=Documented("HTTP_401", HTTP_200=r.CommitmentStatus))
    async def on_get(self, req, resp):
        """Your commitment credits: whether any are usable, how many sats are left and until when, what you
        bought and paid in total, and the last 20 activations."""
        agent = require_agent(req)
        resp.media = await asyncio.to_thread(self.plans.commitment_status, agent["id"])


class SubscriptionPlansResource(_PlanRoute):
    public = True  # interface.md: no credential needed

    @api_spec.validate(tags=["plans"], resp=Documented(HTTP_200=r.SubscriptionPlans))
    async def on_get(self, req, resp):
        """Subscription plans (no key needed): a base allocation per period plus burst credits.

        Subscribing pays `price_sats` from the balance and starts a period of `period_days`. The
        `allocation_sats` go into your `subscription` pool and are used first; the `burst_sats` go into your
        `burst` pool and are used when the allocation runs short. Both are usable until the period ends.
        Subscribing to the same plan while subscribed renews it: the end moves one period later and the
        allocation and burst credits are added. When the subscription ends, unused allocation is forfeited;
        burst credits are kept and become usable again with the next subscription. Another plan can be
        chosen once the current one has ended."""
        resp.media = {"plans": subscription_listing(self.plans), "pool_order": POOL_ORDER_TEXT,
                      "subscribe": {"method": "POST", "path": "/api/v1/subscriptions/subscribe",
                                    "body": {"plan": "name"}}}


class SubscribeResource(_PlanRoute):
    @api_spec.validate(json=PlanBody, tags=["plans"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_409", "HTTP_422", HTTP_200=r.Subscribed))
    async def on_post(self, req, resp):
        """Subscribe to, or renew, a plan (`{"plan": "basic"}`), paid from the balance in the same
        transaction that grants the credits. 402 `insufficient_balance` when the balance is below the price
        (with an `invoice` for the sats missing);
        409 `plan_change_not_allowed` while another plan runs; 422 for an unknown plan."""
        resp.media = await self._buy(req, "subscription", self.plans.subscriptions, self.plans.subscribe)


class SubscriptionStatusResource(_PlanRoute):
    @api_spec.validate(tags=["plans"], resp=Documented("HTTP_401", HTTP_200=r.SubscriptionStatus))
    async def on_get(self, req, resp):
        """Your subscription: plan, whether it is active, when it started and ends, periods paid, and the
        allocation and burst credits left (with whether each is usable now)."""
        agent = require_agent(req)
        resp.media = await asyncio.to_thread(self.plans.subscription_status, agent["id"])
