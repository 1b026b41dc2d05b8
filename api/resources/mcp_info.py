"""What an agent reads about the MCP endpoint besides speaking it (api/resources/mcp_endpoint.py): liveness
(/mcp/health, /health/mcp) and the server card (/mcp/server-card.json and the discovery paths of MCP's server-card
proposals, /.well-known/mcp/server-card.json and /.well-known/mcp.json)."""
from __future__ import annotations

import asyncio
import time

from api import response_docs_agents as agents
from api.mcp.server import (
    INSTRUCTIONS,
    MCP_PATH,
    PROTOCOL_VERSION,
    PROTOCOL_VERSIONS,
    SERVER_NAME,
    SERVER_VERSION,
    MCPEndpoint,
)
from api.mcp.tools import TIERS, tier_counts, visible
from api.metrics import PROCESS_STARTED
from api.resources.discovery import bounded
from api.services import Services
from api.spec import Documented, api_spec

SERVER_CARD_PATHS = ("/mcp/server-card.json", "/.well-known/mcp/server-card.json", "/.well-known/mcp.json")
HEALTH_PATHS = ("/mcp/health", "/health/mcp")
TRANSPORT = "streamable-http"
AUTH = {"required": False, "schemes": [
    {"type": "apiKey", "in": "header", "name": "X-API-Key",
     "description": "The key from POST /api/v1/agents/register: your tier's tools, charged to your balance"},
    {"type": "http", "scheme": "bearer", "description": "The same key as Authorization: Bearer <key>"},
    {"type": "http", "scheme": "L402", "description": "Authorization: L402 <macaroon>:<preimage hex> pays one call, "
                                                      "from the challenge a payment-required result carries"}],
    "anonymous": "the free tier's tools; one free query a day per module, by client address"}


class MCPHealthResource:
    public = True  # interface.md: no credential needed

    def __init__(self, endpoint: MCPEndpoint, services: Services):
        self.endpoint = endpoint
        self.services = services

    @api_spec.validate(tags=["mcp"], resp=Documented(HTTP_200=agents.MCPHealth))
    async def on_get(self, req, resp):
        """Always 200: `status` is `up` when the MCP server answers a real `tools/list` through its transport
        and Redis answers a ping, else `down`, with each check and the gateway's uptime. The checks run at once,
        each bounded by MI_HEALTH_CHECK_TIMEOUT_S, as /health's."""
        bound = self.services.settings.health_check_timeout_s
        (mcp, listed), (redis, _) = await asyncio.gather(bounded(self.endpoint.lists_tools(), bound),
                                                         bounded(self.services.redis.ping(), bound))
        if mcp == "ok":
            mcp = f"ok: {listed} tools listed anonymously" if listed else "down: tools/list did not answer"
        checks = {"mcp": mcp, "redis": redis}
        up = all(v.startswith("ok") for v in checks.values())
        resp.media = {"status": "up" if up else "down", "checks": checks,
                      "uptime_seconds": round(time.time() - PROCESS_STARTED, 1)}


class ServerCardResource:
    public = True  # interface.md: well-known manifests need no credential

    def __init__(self, endpoint: MCPEndpoint):
        self.endpoint = endpoint

    @api_spec.validate(tags=["mcp"], resp=Documented(HTTP_200=agents.MCPServerCard))
    async def on_get(self, req, resp):
        """The MCP server card (SEP-1649/SEP-2127 discovery): server info, the transport endpoint, capabilities,
        authentication and a summary of the tools by tier."""
        tools = self.endpoint.tools
        resp.media = {
            "serverInfo": {"name": SERVER_NAME, "title": "Market intelligence", "version": SERVER_VERSION},
            "protocolVersion": PROTOCOL_VERSION, "protocolVersions": list(PROTOCOL_VERSIONS),
            "description": INSTRUCTIONS,
            "transport": {"type": TRANSPORT, "endpoint": MCP_PATH, "stateless": True},
            "capabilities": {"tools": {"listChanged": False}},
            "authentication": AUTH,
            "tools": {"total": len(tools), "by_tier": tier_counts(tools),
                      "tiers": {tier: [t.name for t in visible(tools, tier) if t.tier == tier] for tier in TIERS}},
            "documentation": "/docs", "manifest": MCP_PATH, "health": HEALTH_PATHS[0],
        }
