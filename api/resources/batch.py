"""POST /api/v1/intelligence/batch: several modules in one request, each metered as if queried alone."""
from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

import orjson
from spectree import Response

from api.errors import APIError, ValidationFailed
from api.middleware import require_agent
from api.module_queries import ModuleQueries
from api.responses import send_json
from api.schemas import BatchBody
from api.spec import api_spec
from intel.registry import Module
from marketintel.lightning.base import BackendUnavailable, LightningError

BATCH_TIERS = ("premium", "institutional")
log = logging.getLogger(__name__)


def item_failure(exc: Exception, request_id: str) -> dict:
    """One module's unexpected failure as its entry in the results (it was not charged)."""
    if isinstance(exc, BackendUnavailable):
        status, code, message = 503, "lightning_unavailable", "The Lightning node did not answer."
    elif isinstance(exc, LightningError):
        status, code, message = 502, "lightning_backend_error", "The Lightning node gave an error."
    else:
        log.exception("batch item %s failed", request_id)
        status, code, message = 500, "internal_error", "Internal error."
    return {"status": status, "error": {"code": code, "message": f"{message} This module was not charged.",
                                        "request_id": request_id}}


class BatchResource:
    def __init__(self, registry: dict[str, Module], queries: ModuleQueries):
        self.registry = registry
        self.queries = queries

    @api_spec.validate(json=BatchBody, tags=["intelligence"],
                       resp=Response("HTTP_200", "HTTP_401", "HTTP_403", "HTTP_422"))
    async def on_post(self, req, resp):
        """Query several modules in one request (premium and institutional tiers).

        Body: `{"modules": ["vix", {"module": "technical_analysis", "ticker": "AAPL", "format": "agent"}],
        "format": "full", "include_prompt": false}` with 1 to 20 modules; a bare name is shorthand for
        `{"module": name}`. Each module is metered exactly as a single query would be (its free query of
        the day first, then its price from the balance), in the order given; one module failing does not
        stop the others and is not charged (a Lightning node that is down is that module's 503). If the
        request itself is cancelled before the answer is sent, nothing in it is charged. The answer is 200
        with one entry per module, in order:
        `{"index", "module", "status": 200, "result": {...the module in its format, with _meta}}` or
        `{"index", "module", "status": 402|404|503, "error": {...}}`, and a `_meta` with the total charged.
        Unknown module names, or a ticker module without `ticker`, reject the whole batch with 422 before
        anything is metered; 403 below the premium tier."""
        agent = require_agent(req)
        if agent["tier"] not in BATCH_TIERS:
            raise APIError(403, "tier_required", "Batch queries need the premium or institutional tier.",
                           tier=agent["tier"], required=list(BATCH_TIERS), upgrade="/api/v1/agents/upgrade")
        body: BatchBody = req.context.json
        self._check(body)
        results, charged, gate, served_reqs = [], 0, False, []
        try:
            for index, item in enumerate(body.modules):
                module = self.registry[item.module]
                ticker = item.ticker.upper() if module.takes_ticker else None
                # its own request id: the debit's ledger reference, so each module is charged (or refunded) alone
                item_req = SimpleNamespace(context=SimpleNamespace(
                    agent=agent, client_ip=req.context.client_ip, request_id=f"{req.context.request_id}.{index}"))
                entry = {"index": index, "module": module.name, **({"ticker": ticker} if ticker else {})}
                try:
                    served = await self.queries.serve(item_req, module, item.format or body.format,
                                                      body.include_prompt, ticker)
                except APIError as exc:
                    results.append({**entry, "status": exc.status, **exc.body()})
                    continue
                except Exception as exc:  # noqa: BLE001  (this module failed and was undone; the others stand)
                    results.append({**entry, **item_failure(exc, item_req.context.request_id)})
                    continue
                served_reqs.append(item_req)
                charged += served.charged_sats
                gate = gate or served.gate_taken
                results.append({**entry, "status": 200, "result": orjson.Fragment(served.body)})
            ok = sum(1 for r in results if r["status"] == 200)
            meta = {"request_id": req.context.request_id, "modules": len(results), "succeeded": ok,
                    "failed": len(results) - ok, "charged_sats": charged}
            send_json(resp, orjson.dumps({"results": results, "_meta": meta}))
        except BaseException:
            # cancelled (or failing) before the answer left: the modules served so far are not delivered,
            # so they are not charged either (shielded: a second cancellation must not stop the refunds)
            await asyncio.shield(asyncio.gather(*(self.queries.metering.undo(r) for r in served_reqs)))
            raise
        await self.queries.usage.gate_taken(gate)

    def _check(self, body: BatchBody) -> None:
        problems = []
        for index, item in enumerate(body.modules):
            module = self.registry.get(item.module)
            if module is None:
                problems.append({"loc": ["body", "modules", index, "module"], "type": "unknown_module",
                                 "msg": f"no module named '{item.module}' (see /api/v1/modules)"})
            elif module.takes_ticker and not item.ticker:
                problems.append({"loc": ["body", "modules", index, "ticker"], "type": "missing",
                                 "msg": f"'{module.name}' needs a ticker"})
        if problems:
            raise ValidationFailed(problems)
