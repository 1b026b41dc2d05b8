"""GET /api/v1/pricing: what everything costs and how to pay, from the one price list (charging/prices.py)."""
from __future__ import annotations

from api import response_docs_routes as r
from api.resources.plans import POOL_ORDER_TEXT, commitment_listing, subscription_listing, tier_prices
from api.services import Services
from api.spec import Documented, api_spec
from charging.prices import MODULE_PRICES, PAST_PRICES, PAST_REASON, TIER_NAMES
from charging.service import ORDER_TEXT
from intel.registry import Module
from warehouse.ledger import REFERRAL_PERCENT, Plans

TOPUP_STEPS = ["POST /api/v1/payments/create-invoice {amount_sats}", "pay the BOLT11 invoice",
               "POST /api/v1/agents/topup {payment_hash, preimage}"]
L402_STEPS = ["send the request without payment: the 402 carries WWW-Authenticate: L402 macaroon=\"...\", "
              "invoice=\"...\" for that request's price", "pay the invoice",
              "repeat the request with Authorization: L402 <macaroon>:<preimage hex>; one token pays one request"]


class PricingResource:
    public = True  # interface.md: no credential needed

    def __init__(self, services: Services, registry: dict[str, Module], plans: Plans):
        self.services = services
        self.registry = registry
        self.plans = plans

    @api_spec.validate(tags=["discovery"], resp=Documented(HTTP_200=r.Pricing))
    async def on_get(self, req, resp):
        """Pay-per-use pricing: per-query prices by tier (and of a module as of a past moment, `past_point`), the
        free allowance, the other priced items (ask by
        depth, the full catalog without a key), and both ways to pay (a prepaid balance, or per request with
        L402 and no registration) with the order in which they are used; the paid tiers (price and days per
        term, bought over Lightning), commitment and subscription plans, the referral reward, the order in
        which your credit pools pay, and the per-key rate limits by tier."""
        prices, settings = self.services.prices, self.services.settings
        by_tier = {name: [] for name in TIER_NAMES.values()}
        for name in sorted(self.registry):
            by_tier[TIER_NAMES[self.registry[name].tier]].append(name)
        resp.media = {
            "currency": "sats",
            "free_allowance": {"queries_per_module_per_day": settings.free_queries_per_module_per_day,
                               "full_data": True},
            "per_query": {TIER_NAMES[t]: price for t, price in MODULE_PRICES.items()},
            "modules": by_tier,
            # a module as of a past moment (`as_of`): its own item `past:<module>`, by tier
            "past_point": {"per_query": {TIER_NAMES[t]: price for t, price in PAST_PRICES.items()},
                           "free_per_day": settings.free_queries_per_module_per_day, "reason": PAST_REASON},
            "items": [{"item": i.key, "price_sats": i.price_sats, "title": i.title, "free_per_day": i.free_per_day,
                       "free_with_key": i.free_with_key, "l402": i.l402, "available": i.available, "reason": i.reason}
                      for i in prices.items.values() if i.kind not in ("module", "past")],
            "passes": [{"item": p.key, "usd_price": p.usd_price, "hours": p.valid_s // 3600, "title": p.title,
                        "sats": "the USD price at the published BTC/USD when the 402 is issued", "l402": True,
                        "reason": p.reason} for p in prices.passes.values()],
            "pulse": {"price_sats": 0, "rate_limit": f"{settings.pulse_rate_per_minute} per minute per client"},
            "payment": {
                "methods": [
                    {"method": "prepaid balance", "credential": "X-API-Key or Authorization: Bearer",
                     "steps": TOPUP_STEPS, "topup_limits_sats": {"min": 1, "max": 10_000_000}},
                    {"method": "L402 per request", "credential": "Authorization: L402 <macaroon>:<preimage hex>",
                     "registration": "not needed", "steps": L402_STEPS,
                     "applies_to": ["/api/v1/intelligence/{module_name}", "/api/v1/catalog",
                                    "/api/v1/intelligence/ask", "/api/v1/intelligence/ask/async",
                                    "/api/v1/intelligence/parallels", "/api/v1/intelligence/track_record",
                                    "/api/v1/predictions", "/api/v1/predictions/accuracy",
                                    "/api/v1/intelligence/consensus",
                                    "/api/v1/trading/day-trade-ideas (a 24-hour pass: see passes)"]}],
                "order": ORDER_TEXT},
            "subscription_required": False,
            "tiers": {tier: {"price_sats": p.price_sats, "days": p.duration.days,
                             "buy": "POST /api/v1/payments/create-invoice {purpose: upgrade, tier}, pay, "
                                    "POST /api/v1/agents/upgrade {payment_hash, preimage}"}
                      for tier, p in tier_prices(settings).items()},
            "commitment_plans": commitment_listing(self.plans),
            "subscription_plans": subscription_listing(self.plans),
            "referral_reward_percent": REFERRAL_PERCENT,
            "pool_order": POOL_ORDER_TEXT,
            "rate_limits_per_key": {"free": settings.rate_limit_free, "premium": settings.rate_limit_premium,
                                    "institutional": settings.rate_limit_institutional,
                                    "applies_to": ["/api/v1/intelligence/{module_name}",
                                                   "/api/v1/intelligence/batch (each module counts)"]},
        }
