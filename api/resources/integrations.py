"""Function-calling tools and configs, and the agent-toolkit and crew configurations (/api/v1/integrations/...),
from the tools intel/integrations builds over the registry, the REST routes' request models and the price list.

The tools are api/tools.py's `service_tools`, the one assembly the MCP server lists too (visibility by tier:
intel.integrations.tools.visible_tools)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from api import response_docs_agents as agents
from api.services import Services
from api.spec import Documented, api_spec
from intel.integrations import frameworks
from intel.integrations.tools import (
    TIERS,
    Tool,
    chat_completions_tools,
    visible_tools,
)
from intel.registry import Module

TIER_TEXT = "Tools visible at this tier; default: your key's tier, free without a key"


class IntegrationsQuery(BaseModel):
    tier: Literal[TIERS] | None = Field(None, description=TIER_TEXT)


def base_url(req, services: Services) -> str:
    """Where the caller reached this service (behind a trusted proxy, the address it was asked for)."""
    return req.forwarded_prefix if services.settings.trust_forwarded_for else req.prefix


class _ToolsRoute:
    anonymous_methods = ("GET",)  # no credential: answered at the free tier (api/openapi_security.py)
    def __init__(self, services: Services, tools: list[Tool], registry: dict[str, Module]):
        self.services = services
        self.tools = tools
        self.visible = {tier: set(visible_tools(tier, registry)) for tier in TIERS}

    def _visible(self, req) -> tuple[str, list[Tool]]:
        """The tier asked for, else the caller's; and the tools it sees."""
        query: IntegrationsQuery = req.context.query
        agent = req.context.agent
        tier = query.tier or (agent["tier"] if agent else "free")
        return tier, [t for t in self.tools if t.name in self.visible[tier]]


class FunctionCallingToolsResource(_ToolsRoute):
    @api_spec.validate(query=IntegrationsQuery, tags=["integrations"],
                       resp=Documented("HTTP_401", "HTTP_422", HTTP_200=agents.FunctionCallingTools))
    async def on_get(self, req, resp):
        """Chat-completions `tools` definitions (type, function name, description with the price, JSON-Schema
        parameters from the REST routes' own request models) for the tools a tier sees: 4 at free (get_pulse,
        list_modules, market_intelligence, economic_calendar), every module plus get_pulse and list_modules at
        premium, and also ask and historical_parallels at institutional (75). `routes` says which REST route runs
        each tool and where its arguments go."""
        tier, tools = self._visible(req)
        resp.media = {"tier": tier, "count": len(tools), "tools_total": len(self.tools),
                      "tools": chat_completions_tools(tools), "routes": frameworks.routes(tools)}


class FunctionCallingConfigResource(_ToolsRoute):
    @api_spec.validate(query=IntegrationsQuery, tags=["integrations"],
                       resp=Documented("HTTP_401", "HTTP_422", HTTP_200=agents.FunctionCallingConfig))
    async def on_get(self, req, resp):
        """Everything to wire the service into a chat-completions model: the tools your tier sees, their routes, a
        system prompt, and Python (`openai` and `httpx`) that runs the tool-calling loop against this service."""
        tier, tools = self._visible(req)
        resp.media = frameworks.function_calling_config(tools, tier, base_url(req, self.services))


class ChainConfigResource(_ToolsRoute):
    @api_spec.validate(query=IntegrationsQuery, tags=["integrations"],
                       resp=Documented("HTTP_401", "HTTP_422", HTTP_200=agents.ChainConfig))
    async def on_get(self, req, resp):
        """An agent toolkit: one structured tool per visible tool (name, description, JSON-Schema `args_schema`,
        route) and Python that turns them into LangChain-style `StructuredTool`s calling this service."""
        tier, tools = self._visible(req)
        resp.media = frameworks.chain_config(tools, tier, base_url(req, self.services))


class CrewConfigResource(_ToolsRoute):
    @api_spec.validate(query=IntegrationsQuery, tags=["integrations"],
                       resp=Documented("HTTP_401", "HTTP_422", HTTP_200=agents.CrewConfig))
    async def on_get(self, req, resp):
        """Crew agent templates (a macro strategist, a risk manager, a crypto analyst: role, goal, backstory,
        tools), their tasks, the configuration of the tools they use (those your tier sees), and Python that builds
        the crew (CrewAI-style) over this service."""
        tier, tools = self._visible(req)
        resp.media = frameworks.crew_config(tools, tier, base_url(req, self.services))
