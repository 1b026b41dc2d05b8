"""The catalog routes, from the module registry and the price list: /api/v1/modules, /catalog, /catalog/preview."""
from __future__ import annotations

import orjson

from api import response_docs_routes as r
from api.catalog_queries import CatalogQueries, module_entry, pricing_summary
from api.responses import send_json
from api.services import Services
from api.spec import Documented, api_spec
from charging.attempt import Attempt
from charging.prices import MODULE_PRICES, TIER_NAMES
from intel.registry import Module


class _CatalogRoute:
    anonymous_methods = ("GET",)  # no credential: answered at the free tier (api/openapi_security.py)

    def __init__(self, queries: CatalogQueries):
        self.queries = queries
        self.services = queries.services


class ModulesResource(_CatalogRoute):
    @api_spec.validate(tags=["discovery"], resp=Documented("HTTP_401", HTTP_200=r.ModuleList))
    async def on_get(self, req, resp):
        """All modules with per-query pricing, whether each is published yet, and (with your key, or by your
        address) how many free queries of each you have left today."""
        resp.media = await self.queries.listing(req.context.payer, req.context.request_id)


class CatalogResource(_CatalogRoute):
    priced = {"GET": ("catalog",)}
    accepts_l402 = True  # the Authentication middleware lets an L402 credential through to this route

    @api_spec.validate(tags=["discovery"], resp=Documented("HTTP_401", "HTTP_402", HTTP_200=r.Catalog))
    async def on_get(self, req, resp):
        """The full service catalog: every module by category with its price, inputs, parameters, formats,
        example path, availability and your free queries left today, plus pricing and the main routes.

        Free with an API key. Without one it is paid per request with L402 (Lightning Labs' HTTP 402
        protocol): the answer is 402 `registration_required` with `WWW-Authenticate: L402 macaroon="<base64>",
        invoice="<bolt11>"` for the catalog price (`items` in /api/v1/pricing), a top-up `invoice`, and how to register
        (free) instead. Pay the L402 invoice, then repeat the request with `Authorization: L402
        <macaroon>:<preimage hex>` (the legacy scheme name `LSAT` is accepted too); the answer then has
        `_meta.paid_with: "l402"`. A token pays for one request. An unknown, altered, expired, unpaid, already
        used or other-resource token, or a wrong preimage, is a 401 with a stable `l402_*` error code and a
        fresh challenge in `WWW-Authenticate`; with an API key the catalog is free (`_meta.paid_with:
        "free_with_key"`) and an L402 credential is not spent. The preview at /api/v1/catalog/preview needs no
        credential."""
        charging = self.services.charging
        attempt = Attempt(req.context.payer, self.services.prices.catalog, req.context.request_id)
        try:
            charge = await charging.charge(attempt)
            body = await self.queries.catalog(req.context.payer)
        except BaseException:
            await charging.undo(attempt)  # nothing is charged for a failed request: the token pays for the retry
            raise
        body["_meta"] = {"data_source": self.services.data_source, "simulated": self.services.simulated,
                         "paid_with": charge.paid_with, "price_sats": attempt.item.price_sats,
                         "charged_sats": charge.charged_sats, "request_id": attempt.request_id}
        resp.media = body


# the preview shows these first (the flagship and one module per asset class), topped up by name
FEATURED = {"S": ("market_intelligence", "yield_curve", "vix", "bitcoin", "technical_analysis"),
            "P": ("market_regime", "risk_dashboard", "recession_probability", "crash_risk", "tail_risk")}
PREVIEW_PER_TIER = 5
REGISTER_STEPS = ["POST /api/v1/agents/register {\"name\": \"my-agent\"}: free, returns your API key once",
                  "send it as X-API-Key (or Authorization: Bearer) on every request",
                  "each module answers one free query per day; then top up over Lightning: "
                  "POST /api/v1/payments/create-invoice, pay, POST /api/v1/agents/topup"]


def featured(registry: dict[str, Module], tier: str, count: int) -> list[Module]:
    names = [n for n in FEATURED[tier] if n in registry and registry[n].tier == tier]
    names += [n for n in sorted(registry) if registry[n].tier == tier and n not in names]
    return [registry[n] for n in names[:count]]


class CatalogPreviewResource:
    public = True  # interface.md: no credential needed

    def __init__(self, services: Services, registry: dict[str, Module], budget):
        self.services = services
        self.budget = budget
        self.body = orjson.dumps(preview(registry, services))  # the same for every caller until a restart

    @api_spec.validate(tags=["discovery"], resp=Documented("HTTP_429", HTTP_200=r.CatalogPreview))
    async def on_get(self, req, resp):
        """A truncated catalog without registration: five modules per price tier, the pricing summary and how
        to register. Shares the pulse's budget of 10 requests per minute per client address (then 429)."""
        await self.budget.take(req.context.client_ip, self.services.one_trip, [])
        send_json(resp, self.body)


def preview(registry: dict[str, Module], services: Services) -> dict:
    shown_fields = ("name", "category", "description", "price_sats", "path")
    prices = services.prices
    return {
        "module_count": len(registry),
        "categories": sorted({m.category for m in registry.values()}),
        "tiers": {TIER_NAMES[t]: {"price_sats": price,
                                  "modules_total": sum(1 for m in registry.values() if m.tier == t),
                                  "shown": [{k: module_entry(m, prices)[k] for k in shown_fields}
                                            for m in featured(registry, t, PREVIEW_PER_TIER)]}
                  for t, price in MODULE_PRICES.items()},
        "pricing": pricing_summary(registry, services.settings.free_queries_per_module_per_day),
        "how_to_register": REGISTER_STEPS,
        "full_catalog": "/api/v1/catalog (with an API key)",
    }
