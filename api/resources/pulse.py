"""GET /api/v1/pulse: the free cross-market snapshot, rebuilt by the pipeline about every 2 minutes."""
from __future__ import annotations

import orjson
from spectree import Response

from api.errors import APIError
from api.ratelimit import Budget
from api.responses import cache_meta, send_json, splice_meta
from api.services import Services
from api.spec import api_spec
from warehouse.cache import AsyncServingCache


class PulseResource:
    public = True  # interface.md: no credential needed

    def __init__(self, services: Services, serving: AsyncServingCache, budget: Budget):
        self.services = services
        self.serving = serving
        self.budget = budget

    @api_spec.validate(tags=["discovery"], resp=Response("HTTP_200", "HTTP_429", "HTTP_503"))
    async def on_get(self, req, resp):
        """Free cross-market pulse: regime with rationale, signals for equities, bonds, crypto, volatility and
        FX with cross-market context, breaking-correlation alerts, composite score (-100..+100), premium
        teasers. 10 requests per minute per client address, then 429 with Retry-After."""
        payload_json, published = await self.budget.take(
            req, self.services.one_trip, [self.serving.pulse_key("full"), self.serving.pulse_key("meta")])
        if payload_json is None:
            raise APIError(503, "data_not_ready", "The pulse has not been computed yet.",
                           headers={"Retry-After": "60"})
        published = orjson.loads(published) if published else {}
        meta = {"data_source": published.get("data_source"), "simulated": published.get("simulated"),
                "cache": cache_meta(published), "price_sats": 0, "charged_sats": 0,
                "request_id": req.context.request_id}
        send_json(resp, splice_meta(payload_json, meta))
