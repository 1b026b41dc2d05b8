"""The service's tools, assembled once: one per module plus the pulse, the module list, ask and historical parallels
(75), their arguments' JSON Schema from the models the REST routes validate with, their prices from the one price
list, their tiers from intel/integrations/tools.py. The function-calling and framework listings
(api/resources/integrations.py) and the MCP server (api/mcp/tools.py) both serve these."""
from __future__ import annotations

from api.schemas import AskBody, IntelligenceQuery, ParallelsQuery, PulseQuery
from charging.prices import ASK_PRICES, PriceList
from intel.integrations.tools import Tool, ToolPrices, ToolSchemas, build_tools
from intel.registry import Module


def service_tools(prices: PriceList, registry: dict[str, Module]) -> list[Tool]:
    """Every tool, its arguments' schema from the model its REST route validates with, its price from the list."""
    schemas = ToolSchemas(IntelligenceQuery.model_json_schema(), AskBody.model_json_schema(),
                          ParallelsQuery.model_json_schema(), PulseQuery.model_json_schema())
    tool_prices = ToolPrices({name: prices.module(name).price_sats for name in registry},
                             prices.module(next(iter(registry))).free_per_day,
                             {depth: prices.ask(depth).price_sats for depth in ASK_PRICES},
                             prices.product("parallels").price_sats)
    return build_tools(registry, schemas, tool_prices)
