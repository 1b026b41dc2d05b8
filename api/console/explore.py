"""Explore: the module catalog with prices and the free queries left today, the pulse, and "try it": a module's page
says what a query costs before anything is spent, then answers through the same use case as the REST route (the
one charging service, the agent's allowance, pools, balance and cap) and shows the answer in the four formats."""
from __future__ import annotations

import orjson

from api.catalog_queries import CatalogQueries
from api.console.pages import Page
from api.errors import APIError
from api.module_queries import ModuleQueries
from api.pulse_queries import PulseQueries
from api.refusals import Refusals
from api.schemas import IntelligenceQuery
from charging.attempt import Payer
from intel import formats

AGENT_ONLY = ("deltas", "temporal_context", "follow_up_actions")  # what the agent format adds to the full payload


class ExplorePage(Page):
    """GET: the catalog, by category, and the pulse."""

    def __init__(self, services, sessions, catalog: CatalogQueries, pulse: PulseQueries):
        super().__init__(services, sessions)
        self.catalog, self.pulse = catalog, pulse

    async def on_get(self, req, resp):
        visitor = await self.signed_in(req, resp)
        if visitor is None:
            return
        entries = await self.catalog.entries(Payer.of(visitor.agent, req.context.client_ip))
        categories: dict[str, list] = {}
        for entry in entries:
            categories.setdefault(entry["category"], []).append(entry)
        try:
            pulse = orjson.loads(await self.pulse.serve(req.context.client_ip, req.context.request_id))
        except APIError as refused:  # not computed yet, or the address's pulse budget is spent
            pulse = {"refused": refused.message}
        self.render(resp, "explore.html", 200, visitor, categories=sorted(categories.items()), pulse=pulse)


class TryPage(Page):
    """GET: one module, its price and whether a query is free today, before anything is spent. POST: the query,
    answered as GET /api/v1/intelligence/{module}?format=agent answers, and shown in the four formats."""

    def __init__(self, services, sessions, catalog: CatalogQueries, queries: ModuleQueries, refusals: Refusals):
        super().__init__(services, sessions)
        self.catalog, self.queries, self.refusals = catalog, queries, refusals

    async def on_get(self, req, resp, module_name: str):
        visitor = await self.signed_in(req, resp)
        if visitor is None:
            return
        await self.show(req, resp, visitor, module_name)

    async def show(self, req, resp, visitor, module_name: str, status: int = 200, **values) -> None:
        entry = await self.entry(visitor, req, module_name)
        if entry is None:
            return self.refuse(resp, 404, "No module of that name.", visitor)
        self.render(resp, "try.html", status, visitor, module=entry, **{"answer": None, **values})

    async def entry(self, visitor, req, module_name: str) -> dict | None:
        if module_name not in self.catalog.registry:
            return None
        entries = await self.catalog.entries(Payer.of(visitor.agent, req.context.client_ip))
        return next(e for e in entries if e["name"] == module_name)

    async def on_post(self, req, resp, module_name: str):
        posted = await self.posted(req, resp)
        if posted is None:
            return
        visitor, form = posted
        module = self.catalog.registry.get(module_name)
        if module is None:
            return self.refuse(resp, 404, "No module of that name.", visitor)
        try:
            query = IntelligenceQuery(format="agent", ticker=form.get("ticker") or None)
        except ValueError:
            return await self.show(req, resp, visitor, module_name, 422, error="A ticker is letters, digits and "
                                   ". ^ = -, at most 10 characters.")
        payer = Payer.of(visitor.agent, req.context.client_ip)
        try:
            served = await self.queries.serve(payer, req.context.request_id, module, query,
                                              self.queries.budgets.window(payer))
        except Exception as exc:  # noqa: BLE001 (every refusal is shown as the API would answer it)
            error = self.refusals.of(exc, req.context.request_id, f"console try {module_name}")
            return await self.show(req, resp, visitor, module_name, error.status,
                                   error=f"{error.message} ({error.status} {error.code})")
        await self.queries.usage.gate_taken(served.gate_taken)
        await self.show(req, resp, visitor, module_name, answer=four_formats(orjson.loads(served.body)))


def four_formats(agent_answer: dict) -> dict[str, str]:
    """The answer in each format, as the API renders it: `agent` as served, `full` without what agent adds, and
    `compact` and `prompt` rendered from that full payload (intel/formats.py)."""
    full = {k: v for k, v in agent_answer.items() if k not in AGENT_ONLY}
    compact = {**formats.compact(full), "_meta": full.get("_meta")}
    return {"full": dumps(full), "compact": dumps(compact), "prompt": formats.prompt_text(full),
            "agent": dumps(agent_answer)}


def dumps(value) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
