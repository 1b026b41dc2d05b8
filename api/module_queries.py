"""One charged module query: read the cached payload (or compute a ticker module), charge it through the
charging service, render the format and queue the usage event. Shared by the GET route and the batch route,
so a module in a batch is charged exactly as if it had been queried alone."""
from __future__ import annotations

import difflib
from dataclasses import dataclass

import orjson

from api.errors import APIError, invalid
from api.one_trip import KEY_CHANGED, LIMITED, Window
from api.past_answers import PastAnswers
from api.ratelimit import KeyBudgets
from api.responses import cache_meta, splice_meta, with_meta
from api.schemas import IntelligenceQuery
from api.services import Services
from api.ticker_modules import TickerModules
from api.usage import UsageRecorder
from charging.attempt import Attempt, Charge, Payer
from intel.formats import render
from intel.registry import Module, modules
from warehouse import keys
from warehouse.cache import AsyncServingCache

SEEN_TTL_S = 30 * 86400


class KeyChanged(Exception):
    """The key's directory entry is not the one the middleware took from memory: look it up again."""

    def __init__(self, entry: bytes | None):
        super().__init__("the key's directory entry changed")
        self.entry = entry


@dataclass(frozen=True)
class Served:
    body: bytes  # the response body with `_meta`
    attempt: Attempt  # what was charged, for a caller that must undo it (a batch cancelled before it answers)
    gate_taken: bool  # this query took the usage-drain gate: the caller enqueues the drain job

    @property
    def charged_sats(self) -> int:
        return self.attempt.charge.charged_sats


class ModuleQueries:
    def __init__(self, services: Services, serving: AsyncServingCache, tickers: TickerModules, usage: UsageRecorder,
                 budgets: KeyBudgets, past: PastAnswers):
        self.services = services
        self.budgets = budgets
        self.charging = services.charging
        self.serving = serving
        self.tickers = tickers
        self.past = past
        self.usage = usage
        # cached rendering key -> (its meta, the rendering) last read: one entry per module and format
        self.held: dict[str, tuple[bytes, bytes]] = {}

    async def serve(self, payer: Payer, request_id: str, module: Module, query: IntelligenceQuery,
                    window: Window | None = None, key_check: tuple[str, bytes] | None = None) -> Served:
        """`request_id` is unique to this query: the ledger reference of its charge. `window` is the caller's
        rate window when this query takes it (not in a batch: the batch took it whole), `key_check` the key
        check the middleware left to this round trip (KeyChanged when it fails). A ticker module without a
        ticker is ValidationFailed at `ticker`, before anything is taken. On any failure what was charged is
        undone, then the error is raised again."""
        fmt, include_prompt, ticker = query.format, query.include_prompt, ticker_of(module, query)
        past = query.as_of is not None  # time travel: computed from the warehouse, priced as a past point
        if past:
            self.past.moment(query.as_of)  # ValidationFailed before anything is taken
        item = self.services.prices.past(module.name) if past else self.services.prices.module(module.name)
        attempt = Attempt(payer, item, request_id)
        cached_fmt = fmt if fmt in ("compact", "prompt") and not include_prompt and not past else "full"
        seen = keys.seen(payer.caller_id, module.name, ticker)
        # served as cached, nothing is left to fail after the round trip: it may record a free query too
        as_cached = not module.takes_ticker and not past and fmt == cached_fmt and not include_prompt and fmt != "agent"
        try:
            # one round trip: the key check, the rate window, the free-allowance count, the cached rendering,
            # its meta and the previous snapshot (and, for a free query served as cached, its record)
            # a query within a request paid whole (payer.prepaid) takes nothing of the free allowance
            counter = None if payer.prepaid else self.charging.allowance.counter(attempt)
            record = self.usage.free_record(attempt, fmt) if as_cached and counter else None
            # the last seen payload travels back only where it is read: the agent format's deltas, or a ticker
            # module's payload computed after the trip; else the trip only says whether it is this one
            # (a past moment has no deltas and leaves the last seen payload as it was)
            seen_read = (fmt == "agent" or module.takes_ticker) and not past
            rendering = self.serving.module_key(module.name, cached_fmt)
            reads = [rendering, self.serving.module_key(module.name, "meta")]
            taken = await self.services.one_trip.run(
                reads + [seen] if seen_read else reads, key_check=key_check, window=window, counter=counter,
                record=record, seen=(seen, SEEN_TTL_S) if cached_fmt == "full" and not past else None,
                held=self.held.get(rendering))
            if taken.code == KEY_CHANGED:
                raise KeyChanged(taken.entry)
            if taken.code == LIMITED:
                raise await self.budgets.refused(payer, window)
            if counter is not None:
                self.charging.allowance.counted(attempt, taken.count)
            payload_json, published, seen_before = taken.reads if seen_read else (*taken.reads, None)
            if past:
                payload_json, published = await self.past.payload_json(module, query.as_of, ticker), None
            elif module.takes_ticker:
                payload_json, published = await self.tickers.payload_json(module, ticker), None
                cached_fmt = "full"
            elif payload_json is None:
                await self._refuse_unsourced(module)
                await self._refuse_without_history(module)
                raise APIError(503, "data_not_ready",
                               f"'{module.name}' has not been computed yet; the pipeline rebuilds modules every "
                               f"{self.services.settings.refresh_minutes} minutes.",
                               headers={"Retry-After": str(self.services.settings.refresh_minutes * 60)})
            elif published is not None:
                self.held[rendering] = (published, payload_json)
            published = orjson.loads(published) if published else None
            rendered = None
            if fmt != cached_fmt or include_prompt or fmt == "agent":
                previous = orjson.loads(seen_before).get("data") if seen_before and fmt == "agent" else None
                rendered = render(orjson.loads(payload_json), fmt, include_prompt, previous, self.services.clock.now(),
                                  deltas_for="agent" if payer.agent is not None else "client_address")
            # Within the allowance the charging service answers free (its order: the allowance before any payment),
            # which is what the round trip recorded.
            charge = await self.charging.charge(attempt)
            body = self._body(attempt, payload_json, rendered, published, charge)
            if taken.recorded:
                return Served(body, attempt, taken.gate_taken)
            async with self.services.redis.pipeline(transaction=False) as pipe:
                seen_is_payload = seen_before == payload_json if seen_read else taken.seen_is_first
                if cached_fmt == "full" and not seen_is_payload and not past:  # unchanged: nothing to write
                    pipe.set(seen, payload_json, ex=SEEN_TTL_S)
                self.usage.add_event(pipe, attempt, charge, fmt)
                gate_taken = (await pipe.execute())[-1]
        except BaseException:
            await self.charging.undo(attempt)  # shielded: a second cancellation cannot stop it half way
            raise
        return Served(body, attempt, bool(gate_taken))

    async def _refuse_unsourced(self, module) -> None:
        """503 `source_unavailable` when the module was never computed because inputs it reads have no source
        with this configuration (the last live ingest's `series_unavailable`), naming them and the settings that
        would bring them. Nothing was charged."""
        raw = await self.services.redis.get(keys.STATUS_INGEST)
        unavailable = (orjson.loads(raw) or {}).get("series_unavailable", {}) if raw else {}
        missing = [sid for sid in module.inputs if sid in unavailable]
        if missing:
            settings = sorted({k for sid in missing for k in unavailable[sid]})
            raise APIError(503, "source_unavailable",
                           f"'{module.name}' reads {', '.join(missing)}, which no configured live source serves"
                           + (f"; set {' or '.join(settings)} to bring them" if settings else "")
                           + ". Nothing was charged.", series=missing, settings=settings)

    async def _refuse_without_history(self, module) -> None:
        """503 `no_history` when the last run could not compute the module because inputs it needs have no history
        yet at the market date (a replay before a series' first stored date, a series never ingested), naming
        them, where each begins, and the published modules of its category that read none of them. Nothing was
        charged."""
        raw = await self.services.redis.hget(keys.STATUS_UNCOMPUTED, module.name)
        if raw is None:
            return
        why = orjson.loads(raw)
        series = why.get("series") or {}
        if not series:
            return
        begins = "; ".join(f"{sid} has no history before {first} here" if first else f"{sid} has no observation here"
                           for sid, first in series.items())
        published = set(await self.serving.published_modules())
        stand_ins = sorted(m.name for m in modules().values() if m.category == module.category
                           and m.name in published and not set(m.inputs) & set(series))
        raise APIError(503, "no_history", f"'{module.name}' has no answer at {why['as_of']}: {begins}."
                       + (f" Published modules of its category that read none of them: {', '.join(stand_ins)}."
                          if stand_ins else "") + " Nothing was charged.",
                       as_of=why["as_of"], series=series, stand_ins=stand_ins)

    def _body(self, attempt: Attempt, payload_json: bytes, rendered: dict | None, published: dict | None,
              charge: Charge) -> bytes:
        meta = {
            "data_source": published["data_source"] if published else self.services.data_source,
            "simulated": published["simulated"] if published else self.services.simulated,
            "cache": cache_meta(published),
            "price_sats": attempt.item.price_sats,
            "charged_sats": charge.charged_sats,
            "paid_with": charge.paid_with,
            "free_queries_left": charge.free_queries_left,
            "request_id": attempt.request_id,
        }
        if charge.balance_sats is not None:
            meta["balance_sats"] = charge.balance_sats
        if charge.pool_left_sats is not None:  # what is left in the pool named by paid_with
            meta["pool_left_sats"] = charge.pool_left_sats
        return with_meta(rendered, meta) if rendered is not None else splice_meta(payload_json, meta)


def ticker_of(module: Module, query: IntelligenceQuery) -> str | None:
    """The symbol a ticker module reads (upper case), None for any other module."""
    if not module.takes_ticker:
        return None
    if not query.ticker:
        raise invalid(["ticker"], f"'{module.name}' needs a ticker, e.g. AAPL", "missing")
    return query.ticker.upper()


def unknown_module(name: str, registry: dict[str, Module]) -> APIError:
    close = difflib.get_close_matches(name, list(registry), n=5, cutoff=0.5)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    return APIError(404, "unknown_module", f"No module named '{name}'.{hint}",
                    did_you_mean=close, modules="/api/v1/modules")
