"""Ticker modules, computed in the API process by the same `intel` functions the assets use, cached in Redis."""
from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from datetime import date, datetime, timedelta

import orjson

from api.errors import APIError
from api.services import Services
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.registry import Module
from intel.sessions import last_closed_day
from warehouse import keys

TICKER_CACHE_TTL_S = 120


class TickerModules:
    def __init__(self, services: Services):
        self.s = services
        # a module's non-ticker inputs are the same for every ticker on a closed day: fetched once per day
        # (for the live source, one FRED request rather than one per ticker queried)
        self._inputs: dict[tuple, Frames] = {}
        self._inputs_lock = threading.Lock()

    async def payload_json(self, module: Module, ticker: str) -> bytes:
        # only bars that are final at the market clock's now: a bar dated today exists after the close
        now = self.s.clock.now()
        closed = last_closed_day(now)
        key = keys.ticker_payload(module.name, ticker, closed)
        cached = await self.s.redis.get(key)
        if cached is not None:
            return cached
        payload_json = await asyncio.to_thread(self._compute, module, ticker, closed, now)
        await self.s.redis.set(key, payload_json, ex=TICKER_CACHE_TTL_S)
        return payload_json

    def _compute(self, module: Module, ticker: str, closed: date, now: datetime) -> bytes:
        bars = self.s.provider.bars(ticker, closed - timedelta(days=module.lookback_days), closed)
        if bars.height == 0:
            raise APIError(404, "unknown_ticker",
                           f"The '{self.s.provider.name}' source has no daily bars for '{ticker}'.", ticker=ticker)
        adjustment = self.s.provider.price_adjustment(ticker)
        # the shared inputs with this request's clock and the bars' adjustment (the cached Frames stay as read)
        frames = replace(self._frames(module, closed), clock=now,
                         adjustments={ticker: adjustment} if adjustment else {})
        try:
            return orjson.dumps(module.compute(frames, bars, ticker))
        except InsufficientData as exc:
            raise APIError(503, "insufficient_data", str(exc), ticker=ticker) from exc

    def _frames(self, module: Module, closed: date) -> Frames:
        """The module's other inputs (momentum_score: the S&P 500) as of the same closed day."""
        if not module.inputs:
            return Frames(now=closed, series={}, data_source=self.s.provider.name)
        key = (module.inputs, module.lookback_days, closed)
        with self._inputs_lock:
            frames = self._inputs.get(key)
        if frames is None:
            long = self.s.provider.observations(module.inputs, closed - timedelta(days=module.lookback_days), closed)
            frames = Frames.from_long(long, closed, self.s.provider.name)
            with self._inputs_lock:
                # only the latest closed day is kept: older days are never asked for again
                self._inputs = {k: v for k, v in self._inputs.items() if k[2] == closed}
                self._inputs[key] = frames
        return frames
