"""POST /api/v1/intelligence/batch: several modules in one request, each charged as if queried alone."""
from __future__ import annotations

import asyncio
import dataclasses
import logging

import orjson

from api import response_docs_routes as r
from api.errors import APIError, ValidationFailed
from api.middleware import require_tier
from api.module_queries import ModuleQueries, ticker_of
from api.refusals import Refusals
from api.responses import send_json
from api.schemas import BatchBody
from api.spec import Documented, api_spec
from charging.attempt import Attempt
from intel.registry import Module

log = logging.getLogger(__name__)


class BatchResource:
    priced = {"POST": ("module:",)}  # each module as queried alone
    anonymous_methods = ("POST",)  # no credential: a 402 with the batch's challenges
    accepts_l402 = True  # a batch paid whole per request, with L402 or MPP

    def __init__(self, registry: dict[str, Module], queries: ModuleQueries, refusals: Refusals):
        self.registry = registry
        self.queries = queries
        self.refusals = refusals

    @api_spec.validate(json=BatchBody, tags=["intelligence"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_403", "HTTP_422", "HTTP_429", "HTTP_503",
                                       HTTP_200=r.BatchResults))
    async def on_post(self, req, resp):
        """Query several modules in one request (premium and institutional tiers).

        Body: `{"modules": ["vix", {"module": "technical_analysis", "ticker": "AAPL", "format": "agent"}],
        "format": "full", "include_prompt": false}` with 1 to 20 modules; a bare name is shorthand for
        `{"module": name}`. Each module is charged exactly as a single query would be (its free query of
        the day first, then your credit pools and balance), in the order given; one module failing does not
        stop the others and is not charged (a Lightning node that is down is that module's 503). If the
        request itself is cancelled before the answer is sent, nothing in it is charged. The answer is 200
        with one entry per module, in order:
        `{"index", "module", "status": 200, "result": {...the module in its format, with _meta}}` or
        `{"index", "module", "status": 402|404|503, "error": {...}}`, and a `_meta` with the total charged.
        Unknown module names, or a ticker module without `ticker`, reject the whole batch with 422 before
        anything is charged; 403 for a key below the premium tier.

        Without a key, or with an L402 or MPP credential, the batch is paid whole per request: a 402 offers an
        invoice for the sum of its modules' prices (no free queries), its token valid for exactly these modules
        and tickers in this order; the paid retry (same body) is answered as above with `_meta.paid_with` the
        protocol, and is delivered whole or not at all: if a module fails, the answer is a 503 and the token is
        not spent (retry with it)."""
        body: BatchBody = req.context.json
        payer = req.context.payer
        if payer.agent is None or payer.pays_per_request:
            self._check(body)
            return await self._paid_whole(req, resp, body)
        require_tier(req, "premium", "A batch query")
        self._check(body)
        results, served = [], []
        try:
            for index, item in enumerate(body.modules):
                entry, done = await self._one(req, body, index, item)
                results.append(entry)
                if done is not None:
                    served.append(done)
            ok = sum(1 for r in results if r["status"] == 200)
            meta = {"request_id": req.context.request_id, "modules": len(results), "succeeded": ok,
                    "failed": len(results) - ok, "charged_sats": sum(s.charged_sats for s in served)}
            send_json(resp, orjson.dumps({"results": results, "_meta": meta}))
        except BaseException:
            # cancelled (or failing) before the answer left: the modules served so far are not delivered, so
            # they are not charged either (each undo is shielded from a second cancellation)
            await asyncio.gather(*(self.queries.charging.undo(s.attempt) for s in served))
            raise
        await self.queries.usage.gate_taken(any(s.gate_taken for s in served))

    async def _paid_whole(self, req, resp, body: BatchBody) -> None:
        """One charge for the whole batch (PaymentRequired, with its challenges, until it is paid), then each module
        served within it, charged nothing more; any module failing undoes the charge and fails the batch."""
        prices = self.queries.services.prices
        parts = [(prices.past(i.module) if i.as_of else prices.module(i.module), ticker_of(self.registry[i.module], i))
                 for i in body.modules]
        attempt = Attempt(req.context.payer, prices.batch(parts), req.context.request_id)
        charge = await self.queries.charging.charge(attempt)
        within = dataclasses.replace(req.context.payer, prepaid=True)
        try:
            results = [await self._one(req, body, index, item, within) for index, item in enumerate(body.modules)]
            failed = [entry for entry, _ in results if entry["status"] != 200]
            if failed:
                raise APIError(503, "batch_incomplete", f"{len(failed)} of the batch's modules could not be served "
                               "now; nothing was charged and the payment was not spent: retry with it.",
                               headers={"Retry-After": "30"}, failed=failed)
        except BaseException:
            await self.queries.charging.undo(attempt)
            raise
        meta = {"request_id": req.context.request_id, "modules": len(results), "succeeded": len(results),
                "failed": 0, "charged_sats": charge.charged_sats, "paid_with": charge.paid_with}
        send_json(resp, orjson.dumps({"results": [entry for entry, _ in results], "_meta": meta}))
        await self.queries.usage.gate_taken(any(s.gate_taken for _, s in results))

    async def _one(self, req, body: BatchBody, index: int, item, payer=None):
        """(the item's entry in the results, what was served or None)."""
        module, query = self.registry[item.module], item.query(body)
        ticker = ticker_of(module, query)  # _check saw each ticker module's ticker
        entry = {"index": index, "module": module.name, **({"ticker": ticker} if ticker else {})}
        # its own request id: the ledger reference of its charge, so each module is charged (or refunded) alone
        request_id = f"{req.context.request_id}.{index}"
        try:
            served = await self.queries.serve(payer or req.context.payer, request_id, module, query)
        except Exception as exc:  # noqa: BLE001  (this module failed and was undone; the others stand)
            error = self.refusals.of(exc, request_id, f"batch item {module.name}")
            return {**entry, "status": error.status, **error.body()}, None
        return {**entry, "status": 200, "result": orjson.Fragment(served.body)}, served

    def _check(self, body: BatchBody) -> None:
        problems = []
        for index, item in enumerate(body.modules):
            module = self.registry.get(item.module)
            if module is None:
                problems.append({"loc": ["body", "modules", index, "module"], "type": "unknown_module",
                                 "msg": f"no module named '{item.module}' (see /api/v1/modules)"})
            else:
                try:
                    ticker_of(module, item)
                    if item.as_of is not None:
                        self.queries.past.moment(item.as_of)
                except ValidationFailed as refused:
                    problems += refused.within("body", "modules", index).detail
        if problems:
            raise ValidationFailed(problems)
