"""The MCP server: the official SDK's low-level `Server` with `tools/list` and `tools/call` over the tool catalog
(api/mcp/tools.py), served by the SDK's streamable HTTP session manager.

Stateless mode: every POST is its own exchange, nothing of a session is kept in the worker. Under gunicorn each
request may land on another worker (or another instance behind a load balancer), and what must persist between
calls (balances, free allowances, rate windows) already lives in the ledger and Redis; no tool sends
server-initiated messages in the middle of a call, so answers are plain JSON (`json_response`), not SSE.

Versions: the initialize handshake answers the client's version when it is 2025-03-26 or newer (the SDK knows
2025-06-18 and 2025-11-25 too, and the 2026-07-28 per-request envelope); an older offer is answered with the newest
handshake version, as the protocol's negotiation rule allows."""
from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass

import mcp_types as types
import orjson
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS

from api.errors import ValidationFailed, tier_required
from api.mcp.calls import Caller, ToolCalls, api_error_result, error_result
from api.mcp.payment import paying, receipt_meta
from api.mcp.tools import ToolSpec, visible
from api.middleware import CredentialRefused
from charging.attempt import Payer

SERVER_NAME = "marketintel"
SERVER_VERSION = "1.0.0"
MCP_PATH = "/mcp"
PROTOCOL_VERSION = "2025-03-26"  # the interface's; the oldest this endpoint negotiates
PROTOCOL_VERSIONS = (*HANDSHAKE_PROTOCOL_VERSIONS[HANDSHAKE_PROTOCOL_VERSIONS.index(PROTOCOL_VERSION):],
                     *MODERN_PROTOCOL_VERSIONS)
PRICE_META = "marketintel/price"  # a tool's `_meta` key for its price
CALLER_SCOPE_KEY = "marketintel.caller"  # where the HTTP layer leaves the resolved Caller in the ASGI scope
INSTRUCTIONS = ("Market intelligence for AI agents. Start with get_pulse (free), then list_modules; each module "
                "gives one free query a day, then costs its price in sats from your balance (send your API key as "
                "X-API-Key). A payment-required result carries a Lightning invoice and how to top up.")


def anonymous() -> Caller:
    """A caller the HTTP layer did not resolve (the health probe's in-process exchange): no key, no address."""
    return Caller(Payer.of(None, "in-process"), "in-process", uuid.uuid4().hex)


def caller_of(ctx) -> Caller:
    request = ctx.request
    caller = request.scope.get(CALLER_SCOPE_KEY) if request is not None else None
    return caller if caller is not None else anonymous()


def as_mcp_tool(tool: ToolSpec) -> types.Tool:
    """`_meta` says what a call costs before it is made: its price in sats (ask: its cheapest depth's; 0: free),
    and the minimum tier that lists it."""
    return types.Tool(name=tool.name, description=tool.description, input_schema=tool.parameters,
                      output_schema=tool.output_schema, annotations=annotations_of(tool),
                      meta={PRICE_META: {"price_sats": tool.price_sats, "currency": "sat", "min_tier": tool.tier,
                                         "pricing": "/api/v1/pricing"}})


def annotations_of(tool: ToolSpec) -> types.ToolAnnotations:
    """No tool changes the service's data; a priced one debits the caller's balance (a repeat pays again), so only
    the free ones are read-only and idempotent. None reaches outside the service: its data is the warehouse's."""
    free = tool.price_sats == 0
    return types.ToolAnnotations(title=tool.name.replace("_", " "), read_only_hint=free, destructive_hint=False,
                                 idempotent_hint=free, open_world_hint=False)


def tier_refusal(tool: ToolSpec, tier: str) -> types.CallToolResult:
    return api_error_result(tier_required(f"'{tool.name}' needs the {tool.tier} tier (yours: {tier}). Upgrade "
                                          "with POST /api/v1/agents/upgrade; tools/list shows what your tier can call.",
                                          tier, tool.tier, tool=tool.name))


class CounterOfferOldVersions:
    """Server middleware: an `initialize` offering a version older than PROTOCOL_VERSION is answered with the newest
    handshake version instead (a stateless exchange keeps no connection state, so the answer is all that counts)."""

    async def __call__(self, ctx, call_next):
        params = ctx.params
        if ctx.method == "initialize" and isinstance(params, Mapping) and \
                params.get("protocolVersion") not in PROTOCOL_VERSIONS:
            ctx = dataclasses.replace(ctx, params={**params, "protocolVersion": LATEST_HANDSHAKE_VERSION})
        return await call_next(ctx)


def build_server(tools: dict[str, ToolSpec], calls: ToolCalls) -> Server:
    # each tier's listing dumped as the SDK dumps a result model (it shapes the dump to the caller's version), once,
    # at its first call: the catalog is fixed at start-up, and a premium listing is 73 tools with their output
    # schemas (about 0.8 MB)
    listings: dict[str, dict] = {}

    async def list_tools(ctx, params) -> dict:
        tier = caller_of(ctx).tier
        if tier not in listings:
            listings[tier] = types.ListToolsResult(tools=[as_mcp_tool(t) for t in visible(tools, tier)]).model_dump(
                mode="json", by_alias=True, exclude_none=True)
        return dict(listings[tier])

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult | dict:
        tool = tools.get(params.name)
        if tool is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}; tools/list shows the tools")
        caller = caller_of(ctx)
        if not tool.visible_to(caller.tier):
            return tier_refusal(tool, caller.tier)
        try:
            caller = paying(caller, params.meta)
        except CredentialRefused as refused:
            return api_error_result(refused.as_api_error())
        except ValidationFailed as invalid:
            return error_result({"detail": invalid.detail}, 422)
        result = await calls.call(caller, tool, params.arguments, ctx.protocol_version)
        if isinstance(result, dict) and (paid := receipt_meta(caller)):
            result["_meta"] = paid
        return result

    def input_schema(name: str) -> dict | None:
        tool = tools.get(name)
        return tool.parameters if tool is not None else None

    # input_schema: the transport checks a 2026-07-28 call's `Mcp-Param-*` headers against the tool's schema; without
    # it the SDK lists every tool the caller can see on each call that carries arguments, to find that one schema
    server = Server(SERVER_NAME, version=SERVER_VERSION, title="Market intelligence", instructions=INSTRUCTIONS,
                    on_list_tools=list_tools, on_call_tool=call_tool, get_tool_input_schema=input_schema)
    server.middleware.append(CounterOfferOldVersions())
    return server


class MCPEndpoint:
    """The SDK server and its session manager, run for the process's ASGI lifespan as a Falcon middleware (startup
    and shutdown run in the one lifespan task, as the manager's task group needs); a manager runs once, so each
    lifespan gets its own (test clients run a lifespan per conversation). Added after api/middleware.SharedClients,
    it stops first (Falcon shuts middleware down in reverse), before the shared Redis pool and SQL engine close."""

    def __init__(self, server: Server, tools: dict[str, ToolSpec]):
        self.server, self.tools = server, tools
        self.manager: StreamableHTTPSessionManager | None = None
        self._running: AsyncExitStack | None = None

    async def process_startup(self, scope, event) -> None:
        manager = StreamableHTTPSessionManager(app=self.server, stateless=True, json_response=True)
        self._running = AsyncExitStack()
        await self._running.enter_async_context(manager.run())
        self.manager = manager

    async def process_shutdown(self, scope, event) -> None:
        self.manager = None
        if self._running is not None:
            running, self._running = self._running, None
            await running.aclose()

    async def exchange(self, scope: dict, body: bytes) -> Exchange | None:
        """One HTTP exchange with the SDK's transport, answered whole (stateless JSON answers are one body); None
        when no manager runs (outside a lifespan)."""
        manager = self.manager
        if manager is None:
            return None
        answer = Exchange(0, [], b"")
        delivered = False

        async def receive():
            nonlocal delivered
            if delivered:
                return {"type": "http.disconnect"}
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message):
            if message["type"] == "http.response.start":
                answer.status, answer.headers = message["status"], list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                answer.body += message.get("body", b"")

        await manager.handle_request(scope, receive, send)
        return answer

    async def lists_tools(self) -> int | None:
        """A real `tools/list` through the running transport, as an anonymous caller: how many tools it listed
        (None when it did not answer one)."""
        request = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
                 "scheme": "http", "path": MCP_PATH, "raw_path": MCP_PATH.encode(), "query_string": b"",
                 "root_path": "", "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 0),
                 "headers": [(b"content-type", b"application/json"), (b"accept", b"application/json"),
                             (b"mcp-protocol-version", PROTOCOL_VERSION.encode()), (b"host", b"localhost")]}
        answer = await self.exchange(scope, request)
        if answer is None or answer.status != 200:
            return None
        reply = orjson.loads(answer.body)
        return len(reply["result"]["tools"]) if "result" in reply else None


@dataclass
class Exchange:
    """What the transport answered to one HTTP request."""

    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
