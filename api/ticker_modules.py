"""The module route's ticker modules: computed by `intel.ticker_payloads.TickerComputer`, cached in Redis under
`warehouse.keys.ticker_payload` (shared with the synthesis worker), failures answered as API errors."""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from api.errors import APIError
from intel.envelope import InsufficientData
from intel.registry import Module
from intel.ticker_payloads import TickerComputer, TickerRequest, UnknownTicker
from warehouse import keys

if TYPE_CHECKING:
    from api.services import Services


class TickerModules:
    """The module route's ticker modules: the shared computation, cached, its failures as API errors."""

    def __init__(self, services: Services):
        self.services = services
        self.computer = TickerComputer(services.provider)

    async def payload_json(self, module: Module, ticker: str) -> bytes:
        request = TickerRequest(module, ticker, self.services.clock.now())
        cache_key = keys.ticker_request(request)
        cached = await self.services.redis.get(cache_key)
        if cached is not None:
            return cached
        try:
            payload_json = await asyncio.to_thread(self.computer.payload_json, request)
        except UnknownTicker as exc:
            raise APIError(404, "unknown_ticker", str(exc), ticker=ticker) from exc
        except InsufficientData as exc:
            raise APIError(503, "insufficient_data", str(exc), ticker=ticker) from exc
        await self.services.redis.set(cache_key, payload_json, ex=keys.TICKER_PAYLOAD_TTL_S)
        return payload_json
