"""The prediction record: how calibrated it is (a reliability diagram per origin, from the accuracy product the
API serves at /api/v1/predictions/accuracy, through the same use case) and whether its hash chains verify, checked
here against the service's public key as `marketintel predictions verify` does.

A chain is verified in a thread when its head moved or the last check is RECHECK_S old (a record rewritten under
an unchanged head is caught then); a long back-test chain takes seconds, so a page waits at most VERIFY_WAIT_S
for it and otherwise says the check is under way and shows the last result."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import orjson

from api.console.charts import reliability_chart
from api.console.pages import Page
from api.errors import APIError
from api.product_queries import ProductQueries
from charging.attempt import Payer
from intel.hash_chain import VerifyResult, verify
from intel.predictions.scoring import pooled_reliability
from marketintel.signing import ServiceKey
from warehouse.ledger.records import ORIGINS, Records, prediction_chain

VERIFY_WAIT_S = 2.0
RECHECK_S = 600.0


@dataclass(frozen=True)
class ChainCheck:
    head: tuple[int, str] | None  # the head (seq, hash) checked; None: an empty chain
    result: VerifyResult | None
    at: float  # time.monotonic() of the check


class ChainChecks:
    """The latest verification of each chain, redone when its head moves."""

    def __init__(self, records: Records, key: ServiceKey):
        self.records, self.key = records, key
        self.done: dict[str, ChainCheck] = {}
        self.running: dict[str, asyncio.Task] = {}

    async def status(self, chain: str) -> dict:
        head = await asyncio.to_thread(self.records.head, chain)
        wanted = (head["seq"], head["hash"]) if head else None
        done = self.done.get(chain)
        if done is not None and done.head == wanted and time.monotonic() - done.at < RECHECK_S:
            return {"state": "checked", "check": done}
        task = self.running.get(chain)
        if task is None or task.done():
            task = self.running[chain] = asyncio.ensure_future(self._verify(chain, wanted))
        try:
            return {"state": "checked", "check": await asyncio.wait_for(asyncio.shield(task), VERIFY_WAIT_S)}
        except TimeoutError:
            return {"state": "verifying", "check": done}

    async def _verify(self, chain: str, head: tuple[int, str] | None) -> ChainCheck:
        def run() -> VerifyResult:
            return verify(chain, self.records.listing(chain, 0, 10**9), self.records.heads(chain),
                          self.key.public_bytes)

        check = ChainCheck(head, await asyncio.to_thread(run) if head else None, time.monotonic())
        self.done[chain] = check
        return check


class RecordPage(Page):
    def __init__(self, services, sessions, products: ProductQueries, checks: ChainChecks):
        super().__init__(services, sessions)
        self.products, self.checks = products, checks

    async def on_get(self, req, resp):
        visitor = await self.signed_in(req, resp)
        if visitor is None:
            return
        payer = Payer.of(visitor.agent, req.context.client_ip)
        try:  # free with a key: the same use case and charging service as the REST route
            served = await self.products.serve(payer, req.context.request_id, "prediction_accuracy",
                                               self.services.prices.product("prediction_accuracy"))
            accuracy, refused = orjson.loads(served.body), None
        except APIError as exc:  # not computed yet
            accuracy, refused = None, exc.message
        origins = [origin_view(origin, (accuracy or {}).get("by_origin", {}).get(origin)) for origin in ORIGINS]
        chains = {origin: await self.checks.status(prediction_chain(origin)) for origin in ORIGINS}
        self.render(resp, "record.html", 200, visitor, accuracy=accuracy, refused=refused, origins=origins,
                    chains=chains, key_id=self.checks.key.key_id)


def origin_view(origin: str, report: dict | None) -> dict:
    """One origin's headline, kinds and pooled reliability diagram (every statement it scored)."""
    scope = (report or {}).get("all") or {}
    kinds = scope.get("by_kind", {})
    rows = pooled_reliability(k["reliability"] for k in kinds.values())
    title = f"{origin.capitalize()} record: observed frequency against predicted probability"
    return {"origin": origin, "n": (report or {}).get("n", 0), "headline": scope.get("headline"),
            "kinds": sorted(kinds.items()), "rows": rows, "chart": reliability_chart(title, rows)}
