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
        module, closed = request.module, request.closed
        payload, _ = self._computed(module, request.ticker, closed, request.now, self._frames(module, closed))
        return orjson.dumps(payload)

    def past_payload(self, module: Module, ticker: str, moment: datetime) -> dict:
        """The module for the ticker as of a past `moment`: the bars final by then and its other inputs as released
        by then, not cached (the shared inputs stay the latest closed day's). UnknownTicker when the source has no
        bars for it by then, InsufficientData as a live query."""
        closed = last_closed_day(moment)
        payload, adjustment = self._computed(module, ticker, closed, moment, self._read(module, closed, moment),
                                             past=True)
        if adjustment:  # a later split or dividend moved the levels the source serves today for those days
            payload["price_vintage"] = f"latest: {adjustment} as the source serves them now, not the prices then"
        return payload

    def _computed(self, module: Module, ticker: str, closed: date, clock: datetime, inputs: Frames,
                  past: bool = False) -> tuple[dict, str | None]:
        """(the payload on the bars final on `closed` and `inputs`, how the bars are adjusted)."""
        bars = self.provider.bars(ticker, closed - timedelta(days=module.lookback_days), closed)
        if bars.height == 0:
            raise UnknownTicker(f"The '{self.provider.name}' source has no daily bars for '{ticker}'"
                                f"{f' by {closed}' if past else ''}.")
        adjustment = self.provider.price_adjustment(ticker)
        # the inputs with this request's clock and the bars' adjustment (cached Frames stay as read)
        frames = replace(inputs, clock=clock, adjustments={ticker: adjustment} if adjustment else {})
        return module.compute(frames, bars, ticker), adjustment

    def _read(self, module: Module, closed: date, end: date | datetime) -> Frames:
        """The module's other inputs (momentum_score: the S&P 500) on `closed`, as released by `end`."""
        if not module.inputs:
            return Frames(now=closed, series={}, data_source=self.provider.name)
        long = self.provider.observations(module.inputs, closed - timedelta(days=module.lookback_days), end)
        return Frames.from_long(long, closed, self.provider.name)

    def _frames(self, module: Module, closed: date) -> Frames:
        """`_read` as of the same closed day, kept for the day: the same for every ticker asked."""
        key = (module.inputs, module.lookback_days, closed)
        with self._inputs_lock:
            frames = self._inputs.get(key)
        if frames is None:
            frames = self._read(module, closed, closed)
            with self._inputs_lock:
                # only the latest closed day is kept: older days are never asked for again
                self._inputs = {k: v for k, v in self._inputs.items() if k[2] == closed}
                self._inputs[key] = frames
        return frames
