"""One ASGI process for both: a small dispatcher in front of the Falcon app sends the MCP transport's requests on
`/mcp` to the SDK's streamable HTTP manager and everything else (the manifest on `GET /mcp` without
`Accept: text/event-stream`, health, server cards, the REST API) to Falcon.

The lifespan is the process's: gunicorn's uvicorn workers send the ASGI lifespan events to this app, which runs the
SDK's session manager around Falcon's own lifespan (its start-up, then its shutdown that closes the shared Redis
pool and SQL engine), so the manager's task group outlives every request and stops before the shared clients close.

Who calls is resolved here, before the SDK sees the request, by the REST API's rules (api/middleware.py): an
`X-API-Key` or `Authorization: Bearer` key names the agent (a key sent but unknown is a 401, as on REST), an
`Authorization: L402` credential pays for one call; the result travels to the tool handlers in the ASGI scope."""
from __future__ import annotations

import orjson

from api.key_directory import KeyDirectory
from api.mcp.calls import Caller
from api.mcp.server import CALLER_SCOPE_KEY, MCP_PATH, MCPEndpoint
from api.middleware import MAX_KEY_CHARS, CredentialRefused, RequestContext, api_key_from, l402_from
from charging.attempt import Payer


class HeaderView:
    """The two things api/middleware.py's credential readers and client-address rule read from a request."""

    def __init__(self, scope):
        self.headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        client = scope.get("client")
        self.remote_addr = client[0] if client else None

    def get_header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


class MCPMount:
    def __init__(self, rest_app, endpoint: MCPEndpoint, directory: KeyDirectory, addresses: RequestContext):
        self.rest_app = rest_app
        self.endpoint = endpoint
        self.directory = directory
        self.addresses = addresses  # the REST API's client-address rule (X-Forwarded-For when trusted)

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            async with self.endpoint.running():
                await self.rest_app(scope, receive, send)
            return
        if scope["type"] == "http" and scope["path"].rstrip("/") == MCP_PATH:
            # ASGI allows iterables of iterables (Falcon's test client passes iterators): read them once, as pairs
            scope = {**scope, "headers": [tuple(header) for header in scope["headers"]]}
            if self._for_transport(scope):
                await self._transport(scope, receive, send)
                return
        await self.rest_app(scope, receive, send)

    @staticmethod
    def _for_transport(scope) -> bool:
        """Everything on /mcp but a plain GET (the manifest, served by Falcon) and CORS preflights."""
        if scope["method"] == "GET":
            accept = next((v for k, v in scope["headers"] if k == b"accept"), b"")
            return b"text/event-stream" in accept
        return scope["method"] in ("POST", "DELETE")

    async def _transport(self, scope, receive, send) -> None:
        view = HeaderView(scope)
        try:
            caller = await self._caller(view)
        except CredentialRefused as refused:
            error = refused.as_api_error()
            await _answer(send, error.status, error.body(), error.headers)
            return
        scope[CALLER_SCOPE_KEY] = caller
        if not await self.endpoint.handle(scope, receive, send):
            await _answer(send, 503, {"error": {"code": "mcp_not_running",
                                                "message": "The MCP endpoint is starting or stopping; retry shortly."}},
                          {"Retry-After": "1"})

    async def _caller(self, view: HeaderView) -> Caller:
        client_ip = self.addresses._client_ip(view)  # noqa: SLF001  (the one rule, shared with RequestContext)
        l402 = l402_from(view)
        key = api_key_from(view)
        agent = None
        if key is not None:
            agent = await self.directory.agent(key) if len(key) <= MAX_KEY_CHARS else None
            if agent is None:
                raise CredentialRefused("invalid_api_key", "The API key is unknown or was rotated.")
        return Caller(Payer.of(agent, client_ip, l402), client_ip)


async def _answer(send, status: int, body: dict, headers: dict) -> None:
    raw = orjson.dumps(body)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode()),
                            *((k.lower().encode(), v.encode()) for k, v in headers.items())]})
    await send({"type": "http.response.body", "body": raw})
