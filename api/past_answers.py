"""`as_of`: a module, or the pulse, as the service would have answered at a past moment, computed from the analyst
copy of the warehouse (read only, refreshed at every publish; the pipeline holds the warehouse itself) by
warehouse/time_travel.py, kept in Redis a while (a past moment's answer does not change), failures as API errors."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from api.errors import APIError, invalid
from intel.envelope import InsufficientData
from intel.registry import Module
from intel.ticker_payloads import TickerComputer, UnknownTicker
from warehouse import keys
from warehouse.history_store import HistoryReader
from warehouse.time_travel import moment_of, parallels_at, payload_at, pulse_at, regime_at, said_past

if TYPE_CHECKING:
    from api.services import Services

PRODUCTS_AT = {"regime": regime_at, "parallels": parallels_at}  # the derived products offered as of a past moment
KEPT_S = 3600  # a late ingest may still add what was released before a recent moment: recompute hourly


class PastAnswers:
    """Answers as of a past moment: a module's (priced by ModuleQueries as a past point), the regime view's and
    parallels' (priced by ProductQueries as theirs) and the pulse's (free)."""

    def __init__(self, services: Services, history: HistoryReader):
        self.services = services
        self.history = history  # the stored days (assets/history.py): a date's answer without computing
        self.tickers = TickerComputer(services.provider)  # ticker modules: bars as the source has them by then

    def moment(self, as_of: date | datetime) -> datetime:
        """The moment asked, checked: not after the market clock."""
        moment, now = moment_of(as_of), self.services.clock.now()
        if moment > now:
            raise invalid(["as_of"], f"{moment.isoformat()} is after the market clock "
                          f"({now.isoformat(timespec='seconds')}); leave as_of out for now", "value_error")
        return moment

    async def payload_json(self, module: Module, as_of: date | datetime, ticker: str | None = None) -> bytes:
        """The module's answer at `as_of` (for `ticker`, a ticker module's), which the caller checked with `moment`
        before charging anything."""
        if ticker is None:
            return await self._answer(module.name, as_of,
                                      lambda source: self._stored_or_computed(module, as_of, source))
        moment = moment_of(as_of)
        try:
            return await self._answer(f"{module.name}:{ticker}", as_of, lambda source: said_past(
                self.tickers.past_payload(module, ticker, moment), moment, isinstance(as_of, datetime)))
        except UnknownTicker as exc:
            raise APIError(404, "unknown_ticker", f"{exc} Nothing was charged.", ticker=ticker) from exc

    async def pulse_json(self, as_of: date | datetime) -> bytes:
        """The pulse at `as_of`, which the caller checked with `moment` before taking the rate window."""
        return await self._answer("pulse", as_of, lambda source: pulse_at(self.analyst_copy(), as_of, source))

    async def product_json(self, product: str, as_of: date | datetime) -> bytes:
        """A derived product (`regime`, `parallels`) at `as_of`, which the caller checked with `moment`."""
        at = PRODUCTS_AT[product]
        return await self._answer(product, as_of, lambda source: at(self.analyst_copy(), as_of, source))

    def _stored_or_computed(self, module: Module, as_of: date | datetime, source: str) -> dict | bytes:
        """A date's answer as the history stored it (the same computation, run ahead), else computed now."""
        if not isinstance(as_of, datetime):
            stored = self.history.payload(module.name, as_of, source)
            if isinstance(stored, bytes):
                return stored
        return payload_at(self.analyst_copy(), module, as_of, source)

    def analyst_copy(self) -> Path:
        """The analyst copy time travel computes from; 503 (nothing charged) before the first publish."""
        path = self.services.settings.analyst_path
        if not path.exists():
            raise APIError(503, "data_not_ready", "The warehouse has not been published yet; nothing was charged.",
                           headers={"Retry-After": str(self.services.settings.refresh_minutes * 60)})
        return path

    async def _answer(self, name: str, as_of: date | datetime, compute: Callable) -> bytes:
        source = self.services.data_source
        key = keys.past_payload(name, moment_of(as_of).isoformat(), source)
        cached = await self.services.redis.get(key)
        if cached is not None:
            return cached
        try:
            payload = await asyncio.to_thread(compute, source)
        except InsufficientData as exc:  # a past moment before the history: no answer will ever come (not a 503)
            raise APIError(404, "no_history", f"'{name}' has no answer at {moment_of(as_of).isoformat()}: {exc}. "
                           "Nothing was charged.", series=list(exc.series)) from exc
        payload_json = payload if isinstance(payload, bytes) else orjson.dumps(payload)
        await self.services.redis.set(key, payload_json, ex=KEPT_S)
        return payload_json
