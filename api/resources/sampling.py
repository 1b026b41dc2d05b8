"""GET /api/v1/sampling/status: which modules the caller has tried today, and the free queries left."""
from __future__ import annotations

from api import response_docs_routes as r
from api.services import Services
from api.spec import Documented, api_spec
from intel.registry import Module


class SamplingStatusResource:
    anonymous_methods = ("GET",)  # no credential: answered at the free tier (api/openapi_security.py)
    def __init__(self, services: Services, registry: dict[str, Module]):
        self.services = services
        self.registry = registry

    @api_spec.validate(tags=["discovery"], resp=Documented("HTTP_401", HTTP_200=r.SamplingStatus))
    async def on_get(self, req, resp):
        """Which modules you have queried today (UTC day of the market clock) and how many free queries each
        has left. With your key it counts your agent's queries; without one, those from your client address.
        A query that failed is not counted."""
        names = sorted(self.registry)
        items = {n: self.services.prices.module(n) for n in names}
        used = await self.services.charging.allowance.uses_today(req.context.payer.caller_id,
                                                                 [i.key for i in items.values()])
        queries = {n: used[items[n].key] for n in names}
        left = {n: max(0, items[n].free_per_day - queries[n]) for n in names}
        tried = [{"module": n, "category": self.registry[n].category, "queries_today": queries[n],
                  "free_queries_left": left[n], "price_sats": items[n].price_sats}
                 for n in names if queries[n] > 0]
        untried = [n for n in names if queries[n] == 0]
        resp.media = {
            "date": self.services.clock.today().isoformat(),
            "caller": "agent" if req.context.agent is not None else "client_address",
            "free_queries_per_module_per_day": self.services.settings.free_queries_per_module_per_day,
            "modules_total": len(names), "tried_count": len(tried), "untried_count": len(untried),
            "free_queries_left_total": sum(left.values()),
            "tried": tried, "untried": untried,
        }
