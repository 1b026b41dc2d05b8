"""GET /api/v1/modules and /api/v1/pricing, both from the module registry."""
from __future__ import annotations

from spectree import Response

from api.metering import Metering, caller_id
from warehouse.cache import AsyncServingCache
from api.services import Services
from api.spec import api_spec
from intel.registry import PRICE_SATS, Module


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
    def __init__(self, services: Services, registry: dict[str, Module]):
        self.s = services
        self.registry = registry

    @api_spec.validate(tags=["discovery"])
    async def on_get(self, req, resp):
        """Pay-per-use pricing: per-query prices by tier, the free allowance, and how to pay."""
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
        }
