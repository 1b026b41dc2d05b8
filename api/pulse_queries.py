"""The pulse, free to every caller: the caller's per-address window and the published copy read in one round trip,
answered with its `_meta`, as GET /api/v1/pulse and MCP's `get_pulse` both serve it."""
from __future__ import annotations

from datetime import date, datetime

import orjson

from api.errors import APIError
from api.past_answers import PastAnswers
from api.ratelimit import Budget
from api.responses import cache_meta, splice_meta
from api.services import Services
from warehouse.cache import AsyncServingCache


class PulseQueries:
    def __init__(self, services: Services, serving: AsyncServingCache, budget: Budget, past: PastAnswers):
        self.services = services
        self.reads = [serving.pulse_key("full"), serving.pulse_key("meta")]
        self.budget = budget
        self.past = past

    async def serve(self, client_ip: str, request_id: str, as_of: date | datetime | None = None) -> bytes:
        """The body; 429 when the address's window is full, 503 before the pipeline's first pulse. With `as_of`,
        the pulse at that past moment (ValidationFailed at `as_of` after the market clock)."""
        if as_of is not None:
            self.past.moment(as_of)
        payload_json, published = await self.budget.take(client_ip, self.services.one_trip, self.reads)
        published = orjson.loads(published) if published else {}
        if as_of is not None:  # computed now from the warehouse of this service's source
            payload_json = await self.past.pulse_json(as_of)
            published = {"data_source": self.services.data_source, "simulated": self.services.simulated}
        if payload_json is None:
            raise APIError(503, "data_not_ready", "The pulse has not been computed yet.", headers={"Retry-After": "60"})
        meta = {"data_source": published.get("data_source"), "simulated": published.get("simulated"),
                "cache": cache_meta(published), "price_sats": 0, "charged_sats": 0, "request_id": request_id}
        return splice_meta(payload_json, meta)
