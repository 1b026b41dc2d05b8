"""Agent consensus: what agents attend to and what the modules they attend to say, from the usage the API records.

Computed per request from the SQL usage ledger (the durable copy: the queue of usage events is drained into it
first, so every query served so far counts) and the published modules' signals in Redis (intel/consensus.py
does the arithmetic). Aggregated only: a topic seen from fewer than `MI_CONSENSUS_MIN_AGENTS` distinct agents
(at least 3) is not shown, and no agent id, key, client hash or address is in the answer. Windows run on the
clock usage events are stamped with: wall-clock UTC, the ledger's clock (api/usage.py), because usage counts real
queries; the modules' signals carry their own market `as_of`. Charged as `product:consensus` in the price list."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson

from api import response_docs_routes as r
from api.product_queries import charge_and_meter
from api.responses import cache_meta, send_json, with_meta
from api.schemas import ConsensusQuery
from api.services import Services
from api.spec import Documented, api_spec
from api.usage import UsageRecorder
from charging.attempt import Attempt, Payer
from intel.consensus import Attention, consensus, current_window, topic_categories
from jobs.usage import drain
from warehouse.cache import AsyncServingCache
from warehouse.ledger import Usage

ITEM = "consensus"  # charging/prices.py PRODUCT_PRICES


@dataclass(frozen=True)
class ServedConsensus:
    body: bytes
    gate_taken: bool


class ConsensusQueries:
    def __init__(self, services: Services, serving: AsyncServingCache, usage: UsageRecorder, registry: dict,
                 now: Callable[[], datetime] | None = None):
        self.services = services
        self.serving = serving
        self.usage = usage
        self.ledger = Usage(services.engine)
        self.now = now or services.money.now  # the ledger's clock: what usage `created_at` is stamped on
        self.min_agents = services.settings.consensus_min_agents
        self.module_categories = {name: m.category for name, m in registry.items()}
        others = [key for key, item in services.prices.items.items() if item.kind != "module"]
        self.categories = topic_categories(self.module_categories, others)

    async def serve(self, payer: Payer, request_id: str, hours: int) -> ServedConsensus:
        """The consensus over the last `hours` for `payer`, charged as the price list's consensus item. It is
        computed before the charge, so a failure to compute costs nothing; a failure after it is undone."""
        payload = await self.compute(hours)
        item = self.services.prices.product(ITEM)
        meta, gate_taken = await charge_and_meter(self.services, self.usage, Attempt(payer, item, request_id), {
            "data_source": self.services.data_source, "simulated": self.services.simulated, "cache": cache_meta(None)})
        return ServedConsensus(with_meta(payload, meta), gate_taken)

    async def compute(self, hours: int) -> dict:
        end = self.now()
        # the RQ queue's connection is a synchronous client: the drain runs off the event loop with the read
        await asyncio.to_thread(drain, self.services.jobs.connection, self.ledger)
        attention = await asyncio.to_thread(self.ledger.attention, end - timedelta(hours=hours), end, self.categories)
        attended = [name for name in current_window(attention.topics, self.min_agents)
                    if name in self.module_categories]
        answer = consensus(attention, await self._published(attended), self.module_categories, self.min_agents)
        return {"window": _window(attention, hours), "min_agents": self.min_agents,
                "privacy": (f"Aggregated only. A topic, hour, format or total seen from fewer than {self.min_agents} "
                            "distinct agents (registered agents, and callers without a key counted by hashed "
                            "address) is not shown; no agent id, key, client hash or address is in this answer."),
                **answer,
                "data_sources": {"usage": "the usage ledger (SQL usage_events: one row per served query)",
                                 "signals": "the published module payloads' signals (as served at "
                                            "/api/v1/intelligence/{module}), each with its market as_of"}}

    async def _published(self, names: list[str]) -> dict[str, dict]:
        if not names:
            return {}
        bodies = await self.services.redis.mget([self.serving.module_key(name, "full") for name in names])
        return {name: orjson.loads(body) for name, body in zip(names, bodies, strict=True) if body is not None}


def _window(attention: Attention, hours: int) -> dict:
    return {"hours": hours, "start": attention.split.isoformat(), "end": attention.end.isoformat(),
            "previous_start": attention.start.isoformat(),
            "clock": "wall-clock UTC, the clock usage events are stamped with"}


class ConsensusResource:
    priced = {"GET": ("product:consensus",)}
    anonymous_methods = ("GET",)  # no credential: answered at the free tier (api/openapi_security.py)
    accepts_l402 = True  # the Authentication middleware lets an L402 credential through to this route

    def __init__(self, queries: ConsensusQueries):
        self.queries = queries

    @api_spec.validate(query=ConsensusQuery, tags=["intelligence"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_422", "HTTP_429", HTTP_200=r.Consensus))
    async def on_get(self, req, resp):
        """Agent consensus over the last `hours` (1-168, default 24), from the queries agents made of this
        service: trending topics (modules, other items and module categories whose share of queries rose against
        the previous window of equal length), attention shifts between categories, query patterns (by UTC hour
        of day, by format, by category), and a consensus signal (`risk_on`, `risk_off`, `bullish`, `bearish`,
        `neutral` or `uncertain`) from the published signals of the modules agents attend to, weighted by their
        share of queries, with its derivation. Aggregated only: anything seen from fewer than `min_agents`
        distinct agents (at least 3) is not shown, and no agent is identified. Priced as a proprietary module
        (`product:consensus` in /api/v1/pricing), with the same free query a day; payable with L402."""
        query: ConsensusQuery = req.context.query
        served = await self.queries.serve(req.context.payer, req.context.request_id, query.hours)
        send_json(resp, served.body)
        await self.queries.usage.gate_taken(served.gate_taken)
