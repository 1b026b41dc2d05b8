"""One metered module query: read the cached payload (or compute a ticker module), settle the charge,
render the format and queue the usage event. Shared by the GET route and the batch route, so a module
in a batch is metered exactly as if it had been queried alone."""
from __future__ import annotations

import asyncio
import difflib
from dataclasses import dataclass

import orjson

from api.errors import APIError
from api.metering import Metering
from api.responses import cache_meta, splice_meta, with_meta
from api.services import Services
from api.ticker_modules import TickerModules
from api.usage import UsageRecorder
from intel.formats import render
from intel.registry import Module
from warehouse.cache import AsyncServingCache

SEEN_TTL_S = 30 * 86400


@dataclass(frozen=True)
class Served:
    body: bytes  # the response body with `_meta`
    charged_sats: int
    gate_taken: bool  # this query took the usage-drain gate: the caller enqueues the drain job


class ModuleQueries:
    def __init__(self, services: Services, metering: Metering, serving: AsyncServingCache, tickers: TickerModules,
                 usage: UsageRecorder):
        self.s = services
        self.metering = metering
        self.serving = serving
        self.tickers = tickers
        self.usage = usage

    async def serve(self, req, module: Module, fmt: str, include_prompt: bool, ticker: str | None) -> Served:
        """`req` needs only a `context` with agent, client_ip and a request_id unique to this query (the
        debit's ledger reference). On any failure the free claim and a debit are undone, then it re-raises."""
        agent = req.context.agent
        cached_fmt = fmt if fmt in ("compact", "prompt") and not include_prompt else "full"
        try:
            # one round trip: the cached rendering, its meta, the previous snapshot and the attempt count
            async with self.s.redis.pipeline(transaction=False) as pipe:
                pipe.mget(self.serving.module_key(module.name, cached_fmt), self.serving.module_key(module.name, "meta"),
                          seen_key(agent, module, ticker))
                self.metering.add_claim(pipe, req, module)
                (payload_json, published, seen), attempts, _ = await pipe.execute()
            req.context.claimed = True  # the attempt is counted: `undo` may take it back
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
            if fmt != cached_fmt or include_prompt or fmt == "agent":
                previous = orjson.loads(seen).get("data") if seen and fmt == "agent" else None
                rendered = render(orjson.loads(payload_json), fmt, include_prompt, previous, self.s.clock.now())
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
        return Served(body, charge.charged_sats, bool(gate_taken))

    def _body(self, req, module: Module, payload_json: bytes, rendered: dict | None, published: dict | None,
              charge) -> bytes:
        meta = {
            "data_source": published["data_source"] if published else self.s.data_source,
            "simulated": published["simulated"] if published else self.s.simulated,
            "cache": cache_meta(published),
            "price_sats": module.price_sats,
            "charged_sats": charge.charged_sats,
            "paid_with": charge.paid_with or ("free_allowance" if charge.free else "balance"),
            "free_queries_left": charge.free_queries_left,
            "request_id": req.context.request_id,
        }
        if charge.balance_sats is not None:
            meta["balance_sats"] = charge.balance_sats
        if charge.pool_left_sats is not None:  # what is left in the pool named by paid_with
            meta["pool_left_sats"] = charge.pool_left_sats
        return with_meta(rendered, meta) if rendered is not None else splice_meta(payload_json, meta)


def seen_key(agent: dict | None, module: Module, ticker: str | None) -> str:
    """The last full payload this agent was served of the module (and ticker), for the agent format's deltas."""
    return f"mi:seen:{agent['agent_id'] if agent else '-'}:{module.name}:{ticker or ''}"


def unknown_module(name: str, registry: dict[str, Module]) -> APIError:
    close = difflib.get_close_matches(name, list(registry), n=5, cutoff=0.5)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    return APIError(404, "unknown_module", f"No module named '{name}'.{hint}",
                    did_you_mean=close, modules="/api/v1/modules")
