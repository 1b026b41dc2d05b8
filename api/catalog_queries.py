"""What the catalog says of the modules, from the registry, the price list and the serving cache: the module list
(GET /api/v1/modules and MCP's `list_modules`) and the full catalog (GET /api/v1/catalog). Each module's
`parameters` are its tool's arguments schema, made from the one declaration of a module query (api/tools.py)."""
from __future__ import annotations

from api.payment_errors import uncharged_meta
from api.services import Services
from charging.attempt import Payer
from charging.prices import MODULE_PRICES, TIER_NAMES, PriceList
from intel.formats import FORMATS
from intel.integrations.tools import Tool
from intel.registry import Module
from warehouse.cache import AsyncServingCache

ROUTES = {"module": "/api/v1/intelligence/{module_name}", "batch": "/api/v1/intelligence/batch",
          "pulse": "/api/v1/pulse", "sampling_status": "/api/v1/sampling/status", "modules": "/api/v1/modules",
          "pricing": "/api/v1/pricing", "openapi": "/openapi.json"}


def module_entry(module: Module, prices: PriceList) -> dict:
    entry = {"name": module.name, "category": module.category, "price_sats": prices.module(module.name).price_sats,
             "tier": TIER_NAMES[module.tier], "description": module.description,
             "inputs": list(module.inputs), "path": f"/api/v1/intelligence/{module.name}",
             "takes_ticker": module.takes_ticker}
    if module.takes_ticker:
        entry["example"] = f"/api/v1/intelligence/{module.name}?ticker=AAPL"
    return entry


def pricing_summary(registry: dict[str, Module], allowance: int) -> dict:
    count = {t: sum(1 for m in registry.values() if m.tier == t) for t in MODULE_PRICES}
    return {"currency": "sats", "free_queries_per_module_per_day": allowance,
            "per_query": {TIER_NAMES[t]: {"price_sats": p, "modules": count[t]} for t, p in MODULE_PRICES.items()},
            "pulse_price_sats": 0, "details": "/api/v1/pricing"}


class CatalogQueries:
    def __init__(self, services: Services, registry: dict[str, Module], serving: AsyncServingCache, tools: list[Tool]):
        self.services = services
        self.registry = registry
        self.serving = serving
        self.parameters = {t.name: t.parameters for t in tools}  # the service's tools (api/tools.py)

    async def listing(self, payer: Payer, request_id: str) -> dict:
        """GET /api/v1/modules and MCP's `list_modules`: every module (`entries`), and a `_meta` charging nothing."""
        entries = await self.entries(payer)
        return {"count": len(entries), "modules": entries,
                "free_queries_per_module_per_day": self.services.settings.free_queries_per_module_per_day,
                "_meta": uncharged_meta(self.services.data_source, self.services.simulated, 0, request_id)}

    async def entries(self, payer: Payer) -> list[dict]:
        """Every module with its price, whether it is published yet, and the caller's free queries left today."""
        names = sorted(self.registry)
        items = [self.services.prices.module(n) for n in names]
        left = await self.services.charging.allowance.left(payer.caller_id, items)
        published = set(await self.serving.published_modules())
        return [{**module_entry(self.registry[n], self.services.prices), "free_queries_left_today": left[item.key],
                 "available": self.registry[n].takes_ticker or n in published} for n, item in zip(names, items)]

    async def catalog(self, payer: Payer) -> dict:
        categories: dict[str, list] = {}
        for entry in await self.entries(payer):
            entry.update(formats=list(FORMATS), parameters=self.parameters[entry["name"]])
            categories.setdefault(entry["category"], []).append(entry)
        return {
            "service": "marketintel", "version": "2.0.0",
            "agent_tier": payer.agent["tier"] if payer.agent else None, "module_count": len(self.registry),
            "categories": [{"category": c, "count": len(entries), "modules": entries}
                           for c, entries in sorted(categories.items())],
            "pricing": pricing_summary(self.registry, self.services.settings.free_queries_per_module_per_day),
            "routes": ROUTES,
        }
