"""The MCP endpoint (interface.md "Integrations and MCP"): the official SDK's streamable HTTP server in the same
ASGI process as the REST API, its tools built from the module registry, validation models and price list, its
calls charged through the one charging service.

- tools.py: the tool catalog and who sees what; calls.py: what a call runs and how it answers;
- server.py: the SDK server, versions, stateless mode, the health probe; mount.py: the ASGI dispatcher and who calls;
- api/resources/mcp_info.py: the manifest, health and server card (Falcon routes)."""
from __future__ import annotations

import logging

from api.mcp.calls import ToolCalls
from api.mcp.mount import MCPMount
from api.mcp.server import MCP_PATH, MCPEndpoint, build_server
from api.mcp.tools import catalog
from api.middleware import RequestContext
from api.module_queries import ModuleQueries
from api.product_queries import ProductQueries
from api.ratelimit import KeyBudgets, RateLimiter
from api.resources import mcp_info
from api.services import Services
from api.synthesis_queries import SynthesisQueries
from api.ticker_modules import TickerModules
from api.usage import UsageRecorder
from intel.registry import modules
from warehouse.cache import AsyncServingCache


def mount_mcp(rest_app, services: Services) -> MCPMount:
    """The REST app with the MCP endpoint beside it: its Falcon routes added, its transport in front."""
    # the SDK logs every stateless exchange at INFO ("Terminating session: None"): its warnings and errors are enough
    logging.getLogger("mcp").setLevel(logging.WARNING)
    settings, registry = services.settings, modules()
    serving, usage = AsyncServingCache(services.redis), UsageRecorder(services.jobs)
    limiter = RateLimiter(settings.effective_redis_url)
    # the REST routes' budgets, by the same names and rates as api/app.py's (the windows live in Redis, so a
    # call here and a REST query take from the same window)
    key_budgets = KeyBudgets(limiter, {"free": settings.rate_limit_free, "premium": settings.rate_limit_premium,
                                       "institutional": settings.rate_limit_institutional})
    pulse_budget = limiter.budget("pulse", f"{settings.pulse_rate_per_minute}/minute")
    queries = ModuleQueries(services, serving, TickerModules(services), usage, key_budgets)
    calls = ToolCalls(queries, SynthesisQueries(services, usage), ProductQueries(services, serving, usage), serving,
                      pulse_budget, registry)
    tools = catalog(registry, services.prices)
    endpoint = MCPEndpoint(build_server(tools, calls), tools)
    rest_app.add_route(MCP_PATH, mcp_info.ManifestResource(endpoint))
    health = mcp_info.MCPHealthResource(endpoint, services)
    for path in mcp_info.HEALTH_PATHS:
        rest_app.add_route(path, health)
    card = mcp_info.ServerCardResource(endpoint)
    for path in mcp_info.SERVER_CARD_PATHS:
        rest_app.add_route(path, card)
    addresses = RequestContext(settings.trust_forwarded_for, services.data_source, services.simulated)
    return MCPMount(rest_app, endpoint, services.directory, addresses)
