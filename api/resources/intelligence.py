"""GET /api/v1/intelligence/{module_name}: cached module payloads, metered."""
from __future__ import annotations

import asyncio
import difflib

import orjson
from spectree import Response

from api.errors import APIError, invalid
from api.metering import Metering
from api.responses import cache_meta, send_json, splice_meta, with_meta
from api.schemas import IntelligenceQuery
from api.services import Services
from api.spec import api_spec
from api.ticker_modules import TickerModules
from api.usage import UsageRecorder
from intel.formats import render
from intel.registry import Module
from warehouse.cache import AsyncServingCache

SEEN_TTL_S = 30 * 86400


class IntelligenceResource:
    def __init__(self, services: Services, registry: dict[str, Module], metering: Metering,
                 serving: AsyncServingCache, tickers: TickerModules, usage: UsageRecorder):
        self.s = services
        self.registry = registry
        self.metering = metering
        self.serving = serving
        self.tickers = tickers
        self.usage = usage

    @api_spec.validate(query=IntelligenceQuery, tags=["intelligence"],
                       resp=Response("HTTP_200", "HTTP_401", "HTTP_402", "HTTP_404", "HTTP_422", "HTTP_503"))
    async def on_get(self, req, resp, module_name: str):
        """Query a module by name.

        Every module gives one free query per day (per agent, or per client address when anonymous); after
        that the module's price (50 or 250 sats) is debited from the balance, or 402 answers with a Lightning
        invoice for the price. Ticker modules (`technical_analysis`) need `ticker`. Formats: `full` (the
        payload with `data`, `signals`, `summary`, `data_sources`, `related_modules`), `compact` (flat
        key-value pairs), `prompt` (text for LLM injection), `agent` (signals, deltas since your last query
        of this module, temporal context, follow-up actions). 404 names close module names; 503 means the
        module has not been computed yet. Nothing is charged for a failed request."""
        module = self.registry.get(module_name)
        if module is None:
            raise unknown_module(module_name, self.registry)
        query: IntelligenceQuery = req.context.query
        if module.takes_ticker and not query.ticker:
            raise invalid(["query", "ticker"], f"'{module.name}' needs a ticker, e.g. ?ticker=AAPL", "missing")
        agent = req.context.agent
        ticker = query.ticker.upper() if module.takes_ticker else None
        cached_fmt = query.format if query.format in ("compact", "prompt") and not query.include_prompt else "full"
        try:
            # one round trip: the cached rendering, its meta, the previous snapshot and the attempt count
            async with self.s.redis.pipeline(transaction=False) as pipe:
                pipe.mget(self.serving.module_key(module.name, cached_fmt), self.serving.module_key(module.name, "meta"),
                          seen_key(agent, module, ticker))
                self.metering.add_claim(pipe, req, module)
                (payload_json, published, seen), attempts, _ = await pipe.execute()
            if module.takes_ticker:
                payload_json, published = await self.tickers.payload_json(module, ticker), None
                cached_fmt = "full"
            elif payload_json is None:
                raise APIError(503, "data_not_ready",
                               f"'{module.name}' has not been computed yet; the pipeline rebuilds modules every "
                               f"{self.s.settings.refresh_minutes} minutes.",
                               headers={"Retry-After": str(self.s.settings.refresh_minutes * 60)})
            published = orjson.loads(published) if published else None
            rendered = None
            if query.format != cached_fmt or query.include_prompt or query.format == "agent":
                previous = orjson.loads(seen).get("data") if seen and query.format == "agent" else None
                rendered = render(orjson.loads(payload_json), query.format, query.include_prompt, previous,
                                  self.s.clock.now())
            charge = await self.metering.settle(req, module, attempts)
            body = self._body(req, module, payload_json, rendered, published, charge)
            async with self.s.redis.pipeline(transaction=False) as pipe:
                if agent is not None and cached_fmt == "full":
                    pipe.set(seen_key(agent, module, ticker), payload_json, ex=SEEN_TTL_S)
                self.usage.add_event(pipe, req, module.name, charge)
                gate_taken = (await pipe.execute())[-1]
        except BaseException:
            # shielded: a second cancellation must not stop the refund half way
            await asyncio.shield(self.metering.undo(req))
            raise
        send_json(resp, body)
        await self.usage.gate_taken(bool(gate_taken))

    def _body(self, req, module: Module, payload_json: bytes, rendered: dict | None, published: dict | None,
              charge) -> bytes:
        meta = {
            "data_source": published["data_source"] if published else self.s.data_source,
            "simulated": published["simulated"] if published else self.s.simulated,
            "cache": cache_meta(published),
            "price_sats": module.price_sats,
            "charged_sats": charge.charged_sats,
            "paid_with": "free_allowance" if charge.free else "balance",
            "free_queries_left": charge.free_queries_left,
            "request_id": req.context.request_id,
        }
        if charge.balance_sats is not None:
            meta["balance_sats"] = charge.balance_sats
        return with_meta(rendered, meta) if rendered is not None else splice_meta(payload_json, meta)


def seen_key(agent: dict | None, module: Module, ticker: str | None) -> str:
    """The last full payload this agent was served of the module (and ticker), for the agent format's deltas."""
    return f"mi:seen:{agent['agent_id'] if agent else '-'}:{module.name}:{ticker or ''}"


def unknown_module(name: str, registry: dict[str, Module]) -> APIError:
    close = difflib.get_close_matches(name, list(registry), n=5, cutoff=0.5)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    return APIError(404, "unknown_module", f"No module named '{name}'.{hint}",
                    did_you_mean=close, modules="/api/v1/modules")
