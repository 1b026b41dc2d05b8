"""The catalog routes, all from the module registry: /api/v1/modules, /pricing, /catalog, /catalog/preview."""
from __future__ import annotations

import asyncio

import falcon
from spectree import Response

from api.errors import APIError
from api.l402 import Offer, catalog_offer, format_challenge
from api.metering import Metering, caller_id
from api.resources.plans import POOL_ORDER_TEXT, commitment_listing, subscription_listing, tier_prices
from api.resources.pulse import within_budget
from warehouse.cache import AsyncServingCache
from api.services import Services
from api.spec import api_spec
from intel.registry import PRICE_SATS, Module
from warehouse.ledger import REFERRAL_PERCENT, Plans


def module_entry(module: Module) -> dict:
    entry = {"name": module.name, "category": module.category, "price_sats": module.price_sats,
             "tier": "proprietary" if module.tier == "P" else "standard", "description": module.description,
             "inputs": list(module.inputs), "path": f"/api/v1/intelligence/{module.name}",
             "takes_ticker": module.takes_ticker}
    if module.takes_ticker:
        entry["example"] = f"/api/v1/intelligence/{module.name}?ticker=AAPL"
    return entry


class ModulesResource:
    def __init__(self, services: Services, registry: dict[str, Module], metering: Metering, serving: AsyncServingCache):
        self.s = services
        self.registry = registry
        self.metering = metering
        self.serving = serving

    @api_spec.validate(tags=["discovery"], resp=Response("HTTP_200", "HTTP_401"))
    async def on_get(self, req, resp):
        """All modules with per-query pricing, whether each is published yet, and (with your key, or by your
        address) how many free queries of each you have left today."""
        names = sorted(self.registry)
        free_left = await self.metering.free_left(caller_id(req), names)
        published = set(await self.serving.published_modules())
        resp.media = {
            "count": len(names),
            "free_queries_per_module_per_day": self.s.settings.free_queries_per_module_per_day,
            "modules": [{**module_entry(self.registry[n]), "free_queries_left_today": free_left[n],
                         "available": self.registry[n].takes_ticker or n in published} for n in names],
        }


class PricingResource:
    def __init__(self, services: Services, registry: dict[str, Module], plans: Plans):
        self.s = services
        self.registry = registry
        self.plans = plans

    @api_spec.validate(tags=["discovery"])
    async def on_get(self, req, resp):
        """Pay-per-use pricing: per-query prices by tier, the free allowance, and how to pay; the paid tiers
        (price and days per term, bought over Lightning), commitment and subscription plans, the referral
        reward, the order in which your pools pay, and the per-key rate limits by tier."""
        by_tier = {"standard": [], "proprietary": []}
        for name in sorted(self.registry):
            by_tier["proprietary" if self.registry[name].tier == "P" else "standard"].append(name)
        resp.media = {
            "currency": "sats",
            "free_allowance": {"queries_per_module_per_day": self.s.settings.free_queries_per_module_per_day,
                               "full_data": True},
            "per_query": {"standard": PRICE_SATS["S"], "proprietary": PRICE_SATS["P"]},
            "modules": by_tier,
            "pulse": {"price_sats": 0, "rate_limit": f"{self.s.settings.pulse_rate_per_minute} per minute per client"},
            "payment": {"methods": ["prepaid balance over Lightning"],
                        "steps": ["POST /api/v1/payments/create-invoice {amount_sats}", "pay the BOLT11 invoice",
                                  "POST /api/v1/agents/topup {payment_hash, preimage}"],
                        "topup_limits_sats": {"min": 1, "max": 10_000_000}},
            "subscription_required": False,
            "tiers": {tier: {"price_sats": p.price_sats, "days": p.duration.days,
                             "buy": "POST /api/v1/payments/create-invoice {purpose: upgrade, tier}, pay, "
                                    "POST /api/v1/agents/upgrade {payment_hash, preimage}"}
                      for tier, p in tier_prices(self.s.settings).items()},
            "commitment_plans": commitment_listing(self.plans),
            "subscription_plans": subscription_listing(self.plans),
            "referral_reward_percent": REFERRAL_PERCENT,
            "pool_order": POOL_ORDER_TEXT,
            "rate_limits_per_key": {"free": self.s.settings.rate_limit_free,
                                    "premium": self.s.settings.rate_limit_premium,
                                    "institutional": self.s.settings.rate_limit_institutional,
                                    "applies_to": ["/api/v1/intelligence/{module_name}",
                                                   "/api/v1/intelligence/batch (each module counts)"]},
        }


FORMATS = ("full", "compact", "prompt", "agent")
# the preview shows these first (the flagship and one module per asset class), topped up by name
FEATURED = {"S": ("market_intelligence", "yield_curve", "vix", "bitcoin", "technical_analysis"),
            "P": ("market_regime", "risk_dashboard", "recession_probability", "crash_risk", "tail_risk")}
TIER_NAMES = {"S": "standard", "P": "proprietary"}
PREVIEW_PER_TIER = 5
REGISTER_STEPS = ["POST /api/v1/agents/register {\"name\": \"my-agent\"}: free, returns your API key once",
                  "send it as X-API-Key (or Authorization: Bearer) on every request",
                  "each module answers one free query per day; then top up over Lightning: "
                  "POST /api/v1/payments/create-invoice, pay, POST /api/v1/agents/topup"]


def featured(registry: dict[str, Module], tier: str, count: int) -> list[Module]:
    names = [n for n in FEATURED[tier] if n in registry and registry[n].tier == tier]
    names += [n for n in sorted(registry) if registry[n].tier == tier and n not in names]
    return [registry[n] for n in names[:count]]


def pricing_summary(registry: dict[str, Module], allowance: int) -> dict:
    count = {t: sum(1 for m in registry.values() if m.tier == t) for t in PRICE_SATS}
    return {"currency": "sats", "free_queries_per_module_per_day": allowance,
            "per_query": {TIER_NAMES[t]: {"price_sats": PRICE_SATS[t], "modules": count[t]} for t in PRICE_SATS},
            "pulse_price_sats": 0, "details": "/api/v1/pricing"}


class CatalogResource:
    accepts_l402 = True  # the Authentication middleware lets an L402 credential through to this route

    def __init__(self, services: Services, registry: dict[str, Module], metering: Metering, serving: AsyncServingCache):
        self.s = services
        self.registry = registry
        self.metering = metering
        self.serving = serving

    @api_spec.validate(tags=["discovery"], resp=Response("HTTP_200", "HTTP_401", "HTTP_402"))
    async def on_get(self, req, resp):
        """The full service catalog: every module by category with its price, inputs, parameters, formats,
        example path, availability and your free queries left today, plus pricing and the main routes.

        Free with an API key. Without one it is paid per request with L402 (Lightning Labs' HTTP 402
        protocol): the answer is 402 with `WWW-Authenticate: L402 macaroon="<base64>", invoice="<bolt11>"`
        for the catalog price (10 sats by default), and how to register (free) instead. Pay the invoice, then
        repeat the request with `Authorization: L402 <macaroon>:<preimage hex>` (the legacy scheme name
        `LSAT` is accepted too); the answer then has `_meta.paid_with: "l402"`. A token pays for one request.
        An unknown, altered, expired, unpaid, already used or other-resource token, or a wrong preimage, is
        a 401 with a stable `l402_*` error code and a fresh challenge in `WWW-Authenticate`; with an API key
        the catalog is free and an L402 credential is not spent. The preview at /api/v1/catalog/preview needs
        no credential."""
        agent = req.context.agent
        offer = None
        if agent is None:
            offer = catalog_offer(self.s.settings.l402_catalog_price_sats)
            if req.context.l402 is None:
                raise await self._payment_required(req, offer)
        try:
            if offer is not None:
                await self.metering.l402.redeem(req, caller_id(req), offer)
            body = await self._catalog(req, agent)
        except BaseException:
            # nothing is charged for a failed request: the token can pay for the retry
            await asyncio.shield(self.metering.l402.release(req))
            raise
        if offer is not None:
            body["_meta"] = {"paid_with": "l402", "price_sats": offer.price_sats, "charged_sats": offer.price_sats,
                             "request_id": req.context.request_id}
        resp.media = body

    async def _payment_required(self, req, offer: Offer) -> APIError:
        challenge = await self.metering.l402.challenge(caller_id(req), offer)
        return APIError(402, "registration_required",
                        "The full catalog is for registered agents (registration is free: POST "
                        "/api/v1/agents/register, then send the key as X-API-Key), or paid per request with L402: "
                        f"pay the invoice in WWW-Authenticate ({offer.price_sats} sats) and repeat the request with "
                        "Authorization: L402 <macaroon>:<preimage hex>. /api/v1/catalog/preview shows a part "
                        "without either.",
                        headers={"WWW-Authenticate": format_challenge(challenge["macaroon"], challenge["invoice"])},
                        register={"method": "POST", "path": "/api/v1/agents/register", "body": {"name": "string"}},
                        preview="/api/v1/catalog/preview", price_sats=offer.price_sats, l402=challenge)

    async def _catalog(self, req, agent: dict | None) -> dict:
        names = sorted(self.registry)
        free_left = await self.metering.free_left(caller_id(req), names)
        published = set(await self.serving.published_modules())
        categories: dict[str, list] = {}
        for name in names:
            module = self.registry[name]
            entry = {**module_entry(module), "formats": list(FORMATS), "free_queries_left_today": free_left[name],
                     "available": module.takes_ticker or name in published,
                     "parameters": {"format": list(FORMATS), "include_prompt": "boolean",
                                    **({"ticker": "string, at most 10 characters, required"}
                                       if module.takes_ticker else {})}}
            categories.setdefault(module.category, []).append(entry)
        return {
            "service": "marketintel", "version": "2.0.0", "agent_tier": agent["tier"] if agent else None,
            "module_count": len(names),
            "categories": [{"category": c, "count": len(entries), "modules": entries}
                           for c, entries in sorted(categories.items())],
            "pricing": pricing_summary(self.registry, self.s.settings.free_queries_per_module_per_day),
            "routes": {"module": "/api/v1/intelligence/{module_name}", "batch": "/api/v1/intelligence/batch",
                       "pulse": "/api/v1/pulse", "sampling_status": "/api/v1/sampling/status",
                       "modules": "/api/v1/modules", "pricing": "/api/v1/pricing", "openapi": "/openapi.json"},
        }


class CatalogPreviewResource:
    def __init__(self, services: Services, registry: dict[str, Module], budget):
        self.s = services
        self.registry = registry
        self.budget = budget

    @falcon.before(within_budget)
    @api_spec.validate(tags=["discovery"], resp=Response("HTTP_200", "HTTP_429"))
    async def on_get(self, req, resp):
        """A truncated catalog without registration: five modules per price tier, the pricing summary and how
        to register. Shares the pulse's budget of 10 requests per minute per client address (then 429)."""
        resp.media = {
            "module_count": len(self.registry),
            "categories": sorted({m.category for m in self.registry.values()}),
            "tiers": {TIER_NAMES[t]: {"price_sats": PRICE_SATS[t],
                                      "modules_total": sum(1 for m in self.registry.values() if m.tier == t),
                                      "shown": [{k: module_entry(m)[k] for k in ("name", "category", "description",
                                                                                 "price_sats", "path")}
                                                for m in featured(self.registry, t, PREVIEW_PER_TIER)]}
                      for t in PRICE_SATS},
            "pricing": pricing_summary(self.registry, self.s.settings.free_queries_per_module_per_day),
            "how_to_register": REGISTER_STEPS,
            "full_catalog": "/api/v1/catalog (with an API key)",
        }
