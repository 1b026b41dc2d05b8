"""GET /api/v1/intelligence/{module_name}: cached module payloads, charged through the charging service."""
from __future__ import annotations

from spectree import Response

from api import response_docs_routes as r
from api.errors import ValidationFailed
from api.history_queries import HistoryQueries
from api.middleware import recheck_key
from api.module_queries import KeyChanged, ModuleQueries, unknown_module
from api.responses import send_json
from api.schemas import HistoryQuery, IntelligenceQuery
from api.spec import Documented, api_spec
from intel.registry import Module


class IntelligenceResource:
    priced = {"GET": ("module:", "past:")}  # x-price in the OpenAPI document (api/openapi_prices.py)
    accepts_l402 = True  # the Authentication middleware lets an L402 credential through to this route
    checks_key = True  # ... and leaves the key check to the query's one round trip

    def __init__(self, registry: dict[str, Module], queries: ModuleQueries):
        self.registry = registry
        self.queries = queries

    @api_spec.validate(query=IntelligenceQuery, tags=["intelligence"],
                       resp=Response("HTTP_200", "HTTP_401", "HTTP_402", "HTTP_404", "HTTP_422", "HTTP_429",
                                     "HTTP_503"))
    async def on_get(self, req, resp, module_name: str):
        """Query a module by name.

        Every module gives one free query per day (per agent, or per client address when anonymous); after
        that the module's price (see /api/v1/pricing) is paid by an L402 token sent with the request, else by your
        credit pools or balance (see /api/v1/pricing `pool_order`), else 402 answers with a Lightning invoice
        for the price and an L402 challenge.

        Without an API key a query can be paid per request with L402 (Lightning Labs' HTTP 402 protocol): the
        402 carries `WWW-Authenticate: L402 macaroon="<base64>", invoice="<bolt11>"` (and the same in the
        body's `error.l402`) for this module at its price. Pay that invoice and repeat the request with
        `Authorization: L402 <macaroon>:<preimage hex>` (the legacy scheme name `LSAT` is accepted too); the
        answer has `_meta.paid_with: "l402"` and `charged_sats` the price. A token pays for one request of the
        module it names; while a free query remains, the query is free and the token is not spent. An
        unknown, altered, expired, unpaid, already used or other-module token, or a wrong preimage, is a 401
        with a stable `l402_*` error code and a fresh challenge in `WWW-Authenticate`.

        Ticker modules (`technical_analysis`, `price_levels`, `momentum_score`,
        `volatility_analysis`) need `ticker`. Formats: `full` (the payload with `data`, `signals`, `summary`,
        `data_sources`, `related_modules`), `compact` (flat key-value pairs), `prompt` (text for LLM
        injection), `agent` (the full payload plus `deltas` since your last query of this module, keyed by
        your agent or, without a key, by your client address as `deltas.since` says; `temporal_context` with
        upcoming calendar events; `follow_up_actions`). 404 names close module names; 503 means the module
        has not been computed yet (`data_not_ready`), or that its inputs have no history yet at the market date
        (`no_history`: which series, where each begins, what stands in). Nothing is charged for a failed request."""
        module = self.registry.get(module_name)
        if module is None:
            raise unknown_module(module_name, self.registry)
        try:
            served = await self._serve(req, module)
        except KeyChanged as changed:  # the key was rotated or its agent changed since this process last saw it
            await recheck_key(req, self.queries.services.directory, changed.entry)
            served = await self._serve(req, module)
        except ValidationFailed as invalid:
            raise invalid.within("query") from None
        send_json(resp, served.body)
        await self.queries.usage.gate_taken(served.gate_taken)

    async def _serve(self, req, module: Module):
        payer = req.context.payer
        return await self.queries.serve(payer, req.context.request_id, module, req.context.query,
                                        self.queries.budgets.window(payer), req.context.key_check)


class HistoryResource:
    priced = {"GET": ("history:",)}
    accepts_l402 = True  # the Authentication middleware lets an L402 credential through to this route

    def __init__(self, registry: dict[str, Module], queries: HistoryQueries):
        self.registry = registry
        self.queries = queries

    @api_spec.validate(query=HistoryQuery, tags=["intelligence"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_404", "HTTP_422", "HTTP_429", "HTTP_503",
                                       HTTP_200=r.ModuleHistory))
    async def on_get(self, req, resp, module_name: str):
        """A module's figures and signals through time, for back-tests: one point per step from `from` to `to`,
        each the answer the service would have given at 00:00 UTC of its day (what `as_of=<day>` answers: only
        observations released by then, each input at its vintage then), with `data_as_of`, the figures asked
        (`fields`, default every scalar figure of `data`) and the signals. A day before an input's history began
        has `values: null` and says why (`no_answer`). Not for ticker modules.

        Served from the stored history (the Dagster asset `module_history`, one partition a market day, in
        DuckDB where analysts read the same table, `module_figures`); steps whose days are not stored yet are
        computed on demand, up to `MI_HISTORY_COMPUTE_LIMIT` (20) a query (`computed_on_demand` says how many),
        else 503 `not_backfilled` names the days and the backfill that would serve them. At most 5,500 steps.

        Priced per step (`history:<module>` in /api/v1/pricing: 1 sat a standard module, 5 a proprietary one),
        billed for at most 250 steps, so a range never costs more than a year of daily steps; no free allowance.
        Paid from your pools or balance, or per request with L402 (the token names the steps it pays for).
        Nothing is charged for a refused or failed request."""
        module = self.registry.get(module_name)
        if module is None:
            raise unknown_module(module_name, self.registry)
        body, gate_taken = await self.queries.serve(req.context.payer, req.context.request_id, module,
                                                    req.context.query)
        send_json(resp, body)
        await self.queries.usage.gate_taken(gate_taken)
