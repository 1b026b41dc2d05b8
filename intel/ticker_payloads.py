"""Ticker modules computed on demand by the same `intel` functions the assets use: a provider in, the payload's
JSON out (no HTTP, no Redis). The module route (api/ticker_modules.py) and the synthesis worker's reader
(jobs/published_reader.py) both compute through `TickerComputer` and keep the result under the same cache key
(`warehouse.keys.ticker_payload`), so a ticker an ask consulted is served from the copy a module query reads."""
from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

import orjson

from intel.frames import Frames
from intel.providers.base import Provider
from intel.registry import Module
from intel.sessions import last_closed_day


class UnknownTicker(Exception):
    """The source has no daily bars for the ticker."""


@dataclass(frozen=True)
class TickerRequest:
    """A ticker module as of the market clock's `now`: only bars final at `now` (a bar dated today exists after the
    close), hence the last closed day, which also names its cached copy."""

    module: Module
    ticker: str
    now: datetime

    @property
    def closed(self) -> date:
        return last_closed_day(self.now)


class TickerComputer:
    def __init__(self, provider: Provider):
        self.provider = provider
        # a module's non-ticker inputs are the same for every ticker on a closed day: fetched once per day
        # (for the live source, one FRED request rather than one per ticker queried)
        self._inputs: dict[tuple, Frames] = {}
        self._inputs_lock = threading.Lock()

    def payload_json(self, request: TickerRequest) -> bytes:
        """The module's payload for the ticker (blocking); UnknownTicker or InsufficientData when it cannot be."""
        module, ticker, closed = request.module, request.ticker, request.closed
        bars = self.provider.bars(ticker, closed - timedelta(days=module.lookback_days), closed)
        if bars.height == 0:
            raise UnknownTicker(f"The '{self.provider.name}' source has no daily bars for '{ticker}'.")
        adjustment = self.provider.price_adjustment(ticker)
        # the shared inputs with this request's clock and the bars' adjustment (the cached Frames stay as read)
        frames = replace(self._frames(module, closed), clock=request.now,
                         adjustments={ticker: adjustment} if adjustment else {})
        return orjson.dumps(module.compute(frames, bars, ticker))

    def _frames(self, module: Module, closed: date) -> Frames:
        """The module's other inputs (momentum_score: the S&P 500) as of the same closed day."""
        if not module.inputs:
            return Frames(now=closed, series={}, data_source=self.provider.name)
        key = (module.inputs, module.lookback_days, closed)
        with self._inputs_lock:
            frames = self._inputs.get(key)
        if frames is None:
            long = self.provider.observations(module.inputs, closed - timedelta(days=module.lookback_days), closed)
            frames = Frames.from_long(long, closed, self.provider.name)
            with self._inputs_lock:
                # only the latest closed day is kept: older days are never asked for again
                self._inputs = {k: v for k, v in self._inputs.items() if k[2] == closed}
                self._inputs[key] = frames
        return frames
