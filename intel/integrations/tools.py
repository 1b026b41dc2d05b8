"""The service's tools: one per module plus the pulse, the module list, ask and historical parallels (75 with 71
modules), each with its description and price, its arguments' JSON Schema and the REST route that runs it.

Which tiers see which tool is decided here and only here (`required_tier`, `visible_tools`): the function-calling
listing and the MCP server both read it."""
from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass

from intel.events.types import TIERS

# what a caller without a key, or a free key, sees: the free snapshot, the listing and two flagship modules
FREE_TOOLS = ("get_pulse", "list_modules", "market_intelligence", "economic_calendar")
# synthesis and ranked parallels are the institutional desk's tools; every module is visible from premium
INSTITUTIONAL_TOOLS = ("ask", "historical_parallels")
NO_ARGUMENTS = {"type": "object", "properties": {}, "additionalProperties": False}
# The REST routes the tools run (registered in api/app.py): method, path, and where the arguments go
MODULE_PATH = "/api/v1/intelligence/{name}"
SERVICE_ROUTES = {"get_pulse": ("GET", "/api/v1/pulse", "query"),
                  "list_modules": ("GET", "/api/v1/modules", "query"),
                  "ask": ("POST", "/api/v1/intelligence/ask", "json"),
                  "historical_parallels": ("GET", "/api/v1/intelligence/parallels", "query")}


@dataclass(frozen=True)
class ToolSchemas:
    """The JSON Schemas (pydantic's `model_json_schema()`) of the request models the REST routes validate with."""

    module_query: dict  # IntelligenceQuery: ticker, include_prompt, format
    ask: dict  # AskBody: question, depth
    parallels: dict  # ParallelsQuery: conditions, top_n
    pulse: dict  # PulseQuery: as_of


@dataclass(frozen=True)
class ToolPrices:
    """What each tool costs, in sats, from the price list."""

    modules: Mapping[str, int]  # module name -> price per query
    free_per_day: int  # free queries per module (and per product with a daily allowance) per caller per day
    ask: Mapping[str, int]  # depth -> price
    parallels: int


@dataclass(frozen=True)
class Tool:
    name: str
    description: str  # what it answers and what it costs
    parameters: dict  # JSON Schema (Draft 2020-12) of the arguments
    price_sats: int  # 0 when free; ask: its cheapest depth (prices by depth are in the description)
    tier: str  # the lowest tier that sees it
    method: str
    path: str
    arguments_in: str  # "query" or "json"
    category: str = "service"
    takes_ticker: bool = False

    def route(self) -> dict:
        return {"method": self.method, "path": self.path, "arguments_in": self.arguments_in}


def required_tier(name: str) -> str:
    if name in FREE_TOOLS:
        return "free"
    return "institutional" if name in INSTITUTIONAL_TOOLS else "premium"


def tool_names(module_names) -> list[str]:
    """Every tool's name in listing order: pulse and list first, the modules by name, ask and parallels last."""
    return ["get_pulse", "list_modules", *sorted(module_names), *INSTITUTIONAL_TOOLS]


def visible_tools(tier: str | None, module_names=None) -> list[str]:
    """The tools a caller of `tier` sees (None: no key, as free). The modules are the registry's unless named."""
    if module_names is None:
        from intel.registry import modules

        module_names = modules()
    rank = TIERS.index(tier or "free")
    return [n for n in tool_names(module_names) if TIERS.index(required_tier(n)) <= rank]


def build_tools(registry: Mapping, schemas: ToolSchemas, prices: ToolPrices) -> list[Tool]:
    """All tools, in `tool_names` order."""
    made = {"get_pulse": _pulse_tool(schemas), "list_modules": _list_tool(prices),
            "ask": _ask_tool(schemas, prices), "historical_parallels": _parallels_tool(schemas, prices)}
    made.update({name: _module_tool(module, schemas, prices) for name, module in registry.items()})
    return [made[name] for name in tool_names(registry)]


def chat_completions_tools(tools: list[Tool]) -> list[dict]:
    """The tools as a chat-completions request's `tools`."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.parameters}} for t in tools]


def _module_tool(module, schemas: ToolSchemas, prices: ToolPrices) -> Tool:
    price = prices.modules[module.name]
    parameters = _module_parameters(schemas.module_query, module.takes_ticker)
    ticker = " Needs `ticker` (e.g. AAPL)." if module.takes_ticker else ""
    description = (f"{module.description.rstrip('.')}.{ticker} Category: {module.category}. Costs {price} sats per "
                   f"query after {prices.free_per_day} free per day; returns JSON with data, signals, summary and "
                   "data sources (format: full, compact, prompt or agent).")
    return Tool(module.name, description, parameters, price, required_tier(module.name), "GET",
                MODULE_PATH.format(name=module.name), "query", module.category, module.takes_ticker)


def _module_parameters(query_schema: dict, takes_ticker: bool) -> dict:
    """The module query's schema: `ticker` required (and never null) for ticker modules, absent for the others."""
    schema = _closed(query_schema)
    properties = schema["properties"]
    if takes_ticker:
        ticker = properties["ticker"]
        string = next(s for s in ticker.pop("anyOf") if s.get("type") == "string")
        ticker.pop("default", None)
        properties["ticker"] = {**ticker, **string}
        schema["required"] = ["ticker"]
    else:
        properties.pop("ticker", None)
    return schema


def _closed(schema: dict) -> dict:
    """A copy with no unknown arguments allowed (a model's stray argument is an error it can correct)."""
    return {**copy.deepcopy(schema), "additionalProperties": False}


def _pulse_tool(schemas: ToolSchemas) -> Tool:
    method, path, where = SERVICE_ROUTES["get_pulse"]
    return Tool("get_pulse", "Free cross-market snapshot, rebuilt about every 2 minutes: the regime with its "
                "rationale, signals for equities, bonds, crypto, volatility and FX, breaking-correlation alerts and a "
                "composite score from -100 to +100, or (`as_of`) as it stood at a past moment. Costs nothing (10 "
                "requests a minute per client).", _closed(schemas.pulse), 0, required_tier("get_pulse"), method, path,
                where)


def _list_tool(prices: ToolPrices) -> Tool:
    method, path, where = SERVICE_ROUTES["list_modules"]
    return Tool("list_modules", "Lists every module with its category, price in sats, description and how many "
                f"free queries of it you have left today ({prices.free_per_day} per module per day). Costs nothing.",
                dict(NO_ARGUMENTS), 0, required_tier("list_modules"), method, path, where)


def _ask_tool(schemas: ToolSchemas, prices: ToolPrices) -> Tool:
    method, path, where = SERVICE_ROUTES["ask"]
    by_depth = ", ".join(f"{d} {p}" for d, p in prices.ask.items())
    return Tool("ask", "Ask a market question in natural language: a synthesis over the published modules with a "
                "conviction score, regime context and the supporting figures (module, field, value, as of). Priced "
                f"by depth in sats: {by_depth}; no free allowance. May answer 202 with a request_id to poll at "
                "/api/v1/synthesis/result/{request_id}.",
                _closed(schemas.ask), min(prices.ask.values()), required_tier("ask"), method, path, where)


def _parallels_tool(schemas: ToolSchemas, prices: ToolPrices) -> Tool:
    method, path, where = SERVICE_ROUTES["historical_parallels"]
    return Tool("historical_parallels", "Ranked historical episodes most like today's conditions (or the condition "
                "tags given), with what followed each. Costs "
                f"{prices.parallels} sats per query after {prices.free_per_day} free per day.",
                _closed(schemas.parallels), prices.parallels, required_tier("historical_parallels"), method, path,
                where)
