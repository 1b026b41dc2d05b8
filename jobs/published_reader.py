"""What a synthesis job reads: the published copies in Redis (the same bytes the module routes serve), never the
DuckDB warehouse, whose one writer any reader would block.

One `RedisPublishedReader` per job: each module, meta and product is read at most once and kept for the rest of
the job, so an answer quotes one consistent copy even if a publish lands meanwhile (the first read wins). Ticker
modules are computed as the module route computes them (intel/ticker_payloads.py), through the same cached copy."""
from __future__ import annotations

from datetime import datetime

import orjson
import redis

from intel.envelope import InsufficientData
from intel.registry import Module
from intel.synthesis.published import Unavailable
from intel.ticker_payloads import TickerComputer, TickerRequest, UnknownTicker
from warehouse import keys

_MISSING = object()


class RedisPublishedReader:
    """A `PublishedReader` (intel/synthesis/published.py) over a sync Redis client, memoised for one job."""

    def __init__(self, client: redis.Redis, registry: dict[str, Module], tickers: TickerComputer, now: datetime):
        self.client = client
        self.registry = registry
        self.tickers = tickers
        self.now = now  # the market clock when the request was accepted: ticker modules are computed as of it
        self._read: dict[str, object] = {}
        self._published: list[str] | None = None

    def module(self, name: str) -> dict | None:
        return self._json(keys.module(name, "full"))

    def meta(self, name: str) -> dict | None:
        return self._json(keys.module(name, "meta"))

    def product(self, name: str) -> dict | None:
        return self._json(keys.product(name, "full"))

    def published(self) -> list[str]:
        if self._published is None:
            self._published = sorted(m.decode() for m in self.client.smembers(keys.modules()))
        return self._published

    def ticker_module(self, name: str, ticker: str) -> dict:
        module = self.registry.get(name)
        if module is None or not module.takes_ticker:
            raise Unavailable(f"'{name}' is not a ticker module")
        request = TickerRequest(module, ticker.upper(), self.now)
        found = self._read.get(keys.ticker_request(request), _MISSING)
        if found is _MISSING:
            found = self._ticker_payload(request)
            self._read[keys.ticker_request(request)] = found
        if isinstance(found, Unavailable):
            raise found
        return found

    def _ticker_payload(self, request: TickerRequest) -> dict | Unavailable:
        cached = self.client.get(keys.ticker_request(request))
        if cached is not None:
            return orjson.loads(cached)
        try:
            payload_json = self.tickers.payload_json(request)
        except (UnknownTicker, InsufficientData) as exc:
            return Unavailable(f"{request.module.name} for {request.ticker}: {exc}")
        self.client.set(keys.ticker_request(request), payload_json, ex=keys.TICKER_PAYLOAD_TTL_S)
        return orjson.loads(payload_json)

    def _json(self, key: str) -> dict | None:
        found = self._read.get(key, _MISSING)
        if found is _MISSING:
            raw = self.client.get(key)
            found = orjson.loads(raw) if raw is not None else None
            self._read[key] = found
        return found
