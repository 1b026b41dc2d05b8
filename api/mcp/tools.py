"""The MCP tool catalog: the service's tools (api/tools.py `service_tools`: names, descriptions, argument schemas,
prices, tiers, the same list the function-calling routes serve), each with what a call runs and the validation model
its arguments go through.

Who sees what (interface.md "Limits": 4 of 75 tools at the free tier; the rule is intel/integrations/tools.py's
`required_tier`):
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

from api.module_schemas import output_schema
from api.schemas import AskBody, IntelligenceQuery, ParallelsQuery, PulseQuery
from intel.integrations.tools import FREE_TOOLS, TIERS, Tool
from intel.registry import Module

PULSE, LIST_MODULES, ASK, PARALLELS = "get_pulse", "list_modules", "ask", "historical_parallels"
# what a call of each non-module tool runs (ToolCalls' method) and the model its arguments validate with
SERVICE_KINDS = {PULSE: ("pulse", PulseQuery), LIST_MODULES: ("list_modules", None), ASK: ("ask", AskBody),
                 PARALLELS: ("parallels", ParallelsQuery)}


@dataclass(frozen=True)
class ToolSpec(Tool):
    """The one definition (name, description, arguments' schema, price, tier, REST route) and what a call runs."""

    kind: str = "module"  # "module", "pulse", "list_modules", "ask", "parallels"
    arguments: type[BaseModel] | None = None  # the REST route's validation model, None for no arguments
    module: Module | None = None

    @property
    def output_schema(self) -> dict | None:
        """A module tool's result, its `data` typed field by field (api/module_schemas.py)."""
        return output_schema(self.module.name) if self.kind == "module" else None

    def visible_to(self, tier: str) -> bool:
        return TIERS.index(tier) >= TIERS.index(self.tier)

    def summary(self) -> dict:
        """What the manifest and the server card say of a tool (ask: its cheapest depth's price)."""
        return {"name": self.name, "description": self.description, "min_tier": self.tier,
                "price_sats": self.price_sats}


def catalog(tools: list[Tool], registry: dict[str, Module]) -> dict[str, ToolSpec]:
    """Every tool (`service_tools`) by name, in listing order: the four free tools first, then the modules, then
    institutional."""
    specs = {}
    for tool in tools:
        kind, model = SERVICE_KINDS.get(tool.name, ("module", IntelligenceQuery))
        specs[tool.name] = ToolSpec(**vars(tool), kind=kind, arguments=model, module=registry.get(tool.name))
    order = [*FREE_TOOLS, *(name for name in specs if name not in FREE_TOOLS)]
    return {name: specs[name] for name in order}


def visible(tools: dict[str, ToolSpec], tier: str) -> list[ToolSpec]:
    return [tool for tool in tools.values() if tool.visible_to(tier)]


def tier_counts(tools: dict[str, ToolSpec]) -> dict[str, int]:
    return {tier: len(visible(tools, tier)) for tier in TIERS}
