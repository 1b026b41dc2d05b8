"""/mcp: the manifest (GET) and the transport (POST), one Falcon resource, so an MCP request goes through the same
middleware as every REST request: its `X-Request-ID` (the ledger reference of what the call charges), the request
metrics, the credential rules (an unknown key is a 401, an L402 credential pays one call) and the app's error shapes.

The POST body goes whole to the SDK's streamable HTTP transport (api/mcp/server.py, stateless, JSON answers) with
the resolved caller in its ASGI scope, and its answer comes back whole. The models below only document the
exchange in /openapi.json: the SDK validates JSON-RPC itself and answers its own errors, so spectree does not."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from api import response_docs_agents as agents
from api.errors import APIError
from api.mcp.calls import Caller
from api.mcp.server import (
    CALLER_SCOPE_KEY,
    MCP_PATH,
    PROTOCOL_VERSION,
    PROTOCOL_VERSIONS,
    SERVER_NAME,
    SERVER_VERSION,
    MCPEndpoint,
)
from api.mcp.tools import tier_counts, visible
from api.payment_errors import REGISTER
from api.resources.mcp_info import AUTH, SERVER_CARD_PATHS, TRANSPORT
from api.spec import Documented, api_spec

METHODS = ("initialize", "notifications/initialized", "ping", "tools/list", "tools/call")
ACCEPTED = b"application/json, text/event-stream"


class MCPHeaders(BaseModel):
    mcp_protocol_version: Literal[PROTOCOL_VERSIONS] = Field(
        None, alias="mcp-protocol-version", description="The version initialize negotiated (optional); 400 when "
        "unknown")


class JSONRPCBody(BaseModel):
    """One JSON-RPC 2.0 message: a request (with `id`) or a notification (without)."""

    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"]
    id: Any = Field(None, description="A string or number; absent for a notification (answered 202, no body)")
    method: str = Field(description=f"Served: {', '.join(METHODS)} (any other is a JSON-RPC error -32601 in a 200). "
                                    "`tools/call` params: {name, arguments}; `initialize` params: {protocolVersion, "
                                    "capabilities, clientInfo}")
    params: dict[str, Any] | None = None


class JSONRPCError(BaseModel):
    code: int
    message: str
    data: Any = None


class JSONRPCAnswer(BaseModel):
    """The answer to a request: `result` (a tool call's result carries `content`, `structuredContent` and `isError`:
    payment required or a tier refusal is a result with `isError`, never an HTTP error) or `error`."""

    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"]
    id: int | str | None = None
    result: dict[str, Any] | None = None
    error: JSONRPCError | None = None


class TransportError(BaseModel):
    """The transport's refusal of the HTTP request itself (malformed JSON-RPC, a wrong header)."""

    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"]
    error: JSONRPCError


class MCPResource:
    anonymous_methods = ("POST",)  # tools/list and free tools need no key; paid ones answer payment-required
    public_methods = ("GET",)  # the manifest needs no credential (interface.md: none or key); a call is charged
    accepts_l402 = True  # Authorization: L402 pays for one tool call

    def __init__(self, endpoint: MCPEndpoint):
        self.endpoint = endpoint

    @api_spec.validate(tags=["mcp"], resp=Documented("HTTP_405", HTTP_200=agents.MCPManifest))
    async def on_get(self, req, resp):
        """The MCP server manifest: name, version, protocol version, transport, the tools your tier sees (all of
        them with a key of the tier that lists them), the total, your tier, how to authenticate and register.
        JSON-RPC goes to POST /mcp. A GET asking for `text/event-stream` is 405: the server is stateless and sends
        nothing unasked, so it offers no stream (the transport specification's answer for that case)."""
        if "text/event-stream" in (req.get_header("Accept") or ""):
            raise APIError(405, "no_event_stream", "This MCP server offers no server-to-client stream: send JSON-RPC "
                           "with POST /mcp.", headers={"Allow": "GET, POST"})
        tier = req.context.agent["tier"] if req.context.agent is not None else "free"
        tools = self.endpoint.tools
        resp.media = {"name": SERVER_NAME, "version": SERVER_VERSION, "protocolVersion": PROTOCOL_VERSION,
                      "protocolVersions": list(PROTOCOL_VERSIONS), "transport": TRANSPORT, "endpoint": MCP_PATH,
                      "tools": [t.summary() for t in visible(tools, tier)], "tools_total": len(tools),
                      "tools_by_tier": tier_counts(tools), "your_tier": tier, "auth": AUTH, "docs": "/docs",
                      "server_card": SERVER_CARD_PATHS[0], "register": REGISTER}

    @api_spec.validate(json=JSONRPCBody, headers=MCPHeaders, tags=["mcp"], skip_validation=True,
                       resp=Documented(HTTP_200=JSONRPCAnswer, HTTP_202=None, HTTP_400=TransportError, HTTP_401=None,
                                       HTTP_413=TransportError, HTTP_415=TransportError, HTTP_503=None))
    async def on_post(self, req, resp):
        """MCP over streamable HTTP (JSON-RPC 2.0; protocol 2025-03-26 and newer; server version 1.0.0; stateless:
        no session id, every POST stands alone). `initialize` negotiates the version; `tools/list` lists the tools
        your key's tier sees (4 without a key); `tools/call` runs one, charged as its REST route is (the day's free
        query, then L402, pools or balance). A refusal (payment required with the invoice and the L402 challenge,
        a tier that does not list the tool, a rate limit, invalid arguments) is a tool result with `isError` and
        the REST answer's body in `structuredContent`. A notification is answered 202 with no body. Answers are
        JSON whatever `Accept` says. Send your key as `X-API-Key` or `Authorization: Bearer`; an unknown key is
        401; a body that is not JSON-RPC (or not `application/json`) is 400."""
        body = await req.bounded_stream.read()
        caller = Caller(req.context.payer, req.context.client_ip, req.context.request_id)
        # the headers as Falcon read them (an ASGI server may pass them as an iterator, which Falcon consumed); the
        # answer is JSON whatever the client's Accept says, as on every REST route (the transport would answer 406)
        headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in req.headers.items()
                   if name.lower() != "accept"] + [(b"accept", ACCEPTED)]
        scope = {**req.scope, "headers": headers, CALLER_SCOPE_KEY: caller}
        answer = await self.endpoint.exchange(scope, body)
        if answer is None:
            raise APIError(503, "mcp_not_running", "The MCP endpoint is starting or stopping; retry shortly.",
                           headers={"Retry-After": "1"})
        resp.status = answer.status
        for name, value in answer.headers:
            if name.lower() != b"content-length":
                resp.set_header(name.decode("latin-1"), value.decode("latin-1"))
        resp.data = answer.body
