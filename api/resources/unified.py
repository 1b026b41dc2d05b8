"""GET /api/v1/intelligence/unified: aggregated context across the published modules (institutional), computed
in the API from one read of the published copies (api/synthesis_queries.py UnifiedQueries), not on RQ."""
from __future__ import annotations

from api import response_docs_routes as r
from api.middleware import require_tier
from api.responses import send_json
from api.schemas import UnifiedQuery
from api.spec import Documented, api_spec
from api.synthesis_queries import UnifiedQueries
from charging.prices import UNIFIED_PRICES, UNIFIED_REASON


class UnifiedResource:
    priced = {"GET": ("unified:",)}
    def __init__(self, queries: UnifiedQueries):
        self.queries = queries

    @api_spec.validate(query=UnifiedQuery, tags=["intelligence"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_403", "HTTP_422", "HTTP_503",
                                       HTTP_200=r.UnifiedContext))
    async def on_get(self, req, resp):
        require_tier(req, "institutional", "Unified context")
        query: UnifiedQuery = req.context.query
        send_json(resp, await self.queries.serve(req.context.payer, req.context.request_id, query.topic, query.depth,
                                                 query.include_prompt))


UnifiedResource.on_get.__doc__ = f"""Aggregated context across the modules relevant to `topic` (every category when
absent), institutional tier (403 `tier_required` below it): the regime, each category's signals and key figures
(each with its module, field path, value and as-of date), where modules disagree, upcoming calendar events and,
with `include_prompt`, a ready prompt block built only from those figures. `depth` sets the breadth. Priced
{", ".join(f"{d} {p}" for d, p in UNIFIED_PRICES.items())} sats (`unified:<depth>` in /api/v1/pricing `items`):
{UNIFIED_REASON} 503 before the first publish; nothing is charged for a failed request."""
