"""The MCP tool catalog: one tool per registry module plus the pulse, the module list, ask and historical parallels,
their input schemas from the REST routes' validation models and their prices from the one price list.

Who sees what (interface.md "Limits": 4 of 75 tools at the free tier; the rule is intel/integrations/tools.py's
`required_tier`, the same for the function-calling tool lists):
- free and anonymous callers: `get_pulse`, `list_modules`, `market_intelligence`, `economic_calendar`: the
  quick-start's free surface, an overview module and the calendar every other figure is read against;
- premium: every module tool (71) with `get_pulse` and `list_modules` (73): the per-query data a paying agent
  buys;
- institutional: all 75, adding `ask` and `historical_parallels`, the synthesis and proprietary analysis that
  read many modules per call.
A tool outside the caller's tier is not listed; calling it answers an error naming the tier that lists it.
The REST routes stay open at every tier (module queries are reachable at every tier): MCP's smaller list keeps a
free agent's context short, it does not gate the data."""
from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from api.schemas import AskBody, IntelligenceQuery, ParallelsQuery
from charging.prices import ASK_PRICES, PriceList
from intel.integrations.tools import FREE_TOOLS, NO_ARGUMENTS, TIERS, required_tier
from intel.registry import Module

PULSE, LIST_MODULES, ASK, PARALLELS = "get_pulse", "list_modules", "ask", "historical_parallels"


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict
    min_tier: str  # the lowest tier that lists it
    kind: str  # "module", "pulse", "list_modules", "ask", "parallels": what a call runs
    price_sats: int | None  # per call beyond the free allowance; None: priced by an argument (ask's depth)
    arguments: type[BaseModel] | None = None  # the REST route's validation model, None for no arguments
    module: Module | None = None

    def visible_to(self, tier: str) -> bool:
        return TIERS.index(tier) >= TIERS.index(self.min_tier)

    def summary(self) -> dict:
        """What the manifest and the server card say of a tool."""
        return {"name": self.name, "description": self.description, "min_tier": self.min_tier,
                "price_sats": self.price_sats}


def schema_of(model: type[BaseModel], required: tuple[str, ...] = ()) -> dict:
    """The model's JSON Schema as the tool's inputSchema (an object at the root, as every protocol version asks)."""
    schema = model.model_json_schema()
    schema.pop("title", None)
    if required:
        schema["required"] = sorted(set(schema.get("required", [])) | set(required))
    return schema


def module_tool(module: Module, prices: PriceList) -> ToolSpec:
    price = prices.module(module.name).price_sats
    ticker = " Needs `ticker`." if module.takes_ticker else ""
    description = (f"{module.description}.{ticker} {price} sats per query after the day's free query; `format` "
                   "picks the rendering (full, compact, prompt, agent).")
    return ToolSpec(module.name, description, schema_of(IntelligenceQuery, ("ticker",) if module.takes_ticker else ()),
                    required_tier(module.name), "module", price, IntelligenceQuery, module)


def catalog(registry: dict[str, Module], prices: PriceList) -> dict[str, ToolSpec]:
    """Every tool by name, in listing order: the four free tools first, then the modules, then institutional."""
    tools = [
        ToolSpec(PULSE, "Free cross-market pulse: regime with rationale, signals for equities, bonds, crypto, "
                 "volatility and FX, breaking-correlation alerts, a composite score from -100 to +100. Shares the "
                 "REST pulse's budget of 10 calls a minute per client address.", NO_ARGUMENTS, required_tier(PULSE),
                 "pulse", 0),
        ToolSpec(LIST_MODULES, "Every module with its price in sats, category, whether it takes a ticker, whether "
                 "it is published, and your free queries left today.", NO_ARGUMENTS, required_tier(LIST_MODULES),
                 "list_modules", 0),
    ]
    tools += [module_tool(registry[name], prices) for name in FREE_TOOLS if name in registry]
    tools += [module_tool(m, prices) for name, m in sorted(registry.items()) if name not in FREE_TOOLS]
    asks = ", ".join(f"{depth} {price}" for depth, price in ASK_PRICES.items())
    tools += [
        ToolSpec(ASK, f"A question in natural language answered from the service's published figures, with a "
                 f"conviction score and every supporting figure. Priced by depth (sats): {asks}; no free "
                 "allowance. A long synthesis answers its request_id and the REST path to poll.",
                 schema_of(AskBody), required_tier(ASK), "ask", None, AskBody),
        ToolSpec(PARALLELS, "Ranked historical parallels: today's market against 30 curated episodes (1929-2024), "
                 "each with its similarity, what happened next and implications per asset class. "
                 f"{prices.product('parallels').price_sats} sats after the day's free query.",
                 schema_of(ParallelsQuery), required_tier(PARALLELS), "parallels",
                 prices.product("parallels").price_sats,
                 ParallelsQuery),
    ]
    return {tool.name: tool for tool in tools}


def visible(tools: dict[str, ToolSpec], tier: str) -> list[ToolSpec]:
    return [tool for tool in tools.values() if tool.visible_to(tier)]


def tier_counts(tools: dict[str, ToolSpec]) -> dict[str, int]:
    return {tier: len(visible(tools, tier)) for tier in TIERS}
