"""Ticker modules, computed in the API process by the same `intel` functions the assets use, cached in Redis."""
from __future__ import annotations

import asyncio
from datetime import date, timedelta

import orjson

from api.errors import APIError
from api.services import Services
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.registry import Module
from intel.sessions import last_closed_day

TICKER_CACHE_TTL_S = 120


class TickerModules:
    def __init__(self, services: Services):
        self.s = services

    async def payload_json(self, module: Module, ticker: str) -> bytes:
        # only bars that are final at the market clock's now: a bar dated today exists after the close
        closed = last_closed_day(self.s.clock.now())
        key = f"mi:ticker:{module.name}:{ticker}:{closed.isoformat()}"
        cached = await self.s.redis.get(key)
        if cached is not None:
            return cached
        payload_json = await asyncio.to_thread(self._compute, module, ticker, closed)
        await self.s.redis.set(key, payload_json, ex=TICKER_CACHE_TTL_S)
        return payload_json

    def _compute(self, module: Module, ticker: str, closed: date) -> bytes:
        bars = self.s.provider.bars(ticker, closed - timedelta(days=module.lookback_days), closed)
        if bars.height == 0:
            raise APIError(404, "unknown_ticker",
                           f"The '{self.s.provider.name}' source has no daily bars for '{ticker}'.", ticker=ticker)
        # the module's other inputs (momentum_score: the S&P 500) as of the same closed day
        start = closed - timedelta(days=module.lookback_days)
        long = self.s.provider.observations(module.inputs, start, closed) if module.inputs else None
        frames = (Frames.from_long(long, closed, self.s.provider.name) if long is not None
                  else Frames(now=closed, series={}, data_source=self.s.provider.name))
        try:
            return orjson.dumps(module.compute(frames, bars, ticker))
        except InsufficientData as exc:
            raise APIError(503, "insufficient_data", str(exc), ticker=ticker) from exc
