"""App-wide concerns: request ids, client address, and who is calling."""
from __future__ import annotations

import asyncio
import re
import uuid

from api.errors import APIError
from warehouse.ledger import Agents

REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


class RequestContext:
    def __init__(self, trust_forwarded_for: bool):
        self.trust_forwarded_for = trust_forwarded_for

    async def process_request(self, req, resp):
        given = req.get_header("X-Request-ID")
        req.context.request_id = given if given and REQUEST_ID.match(given) else uuid.uuid4().hex
        req.context.client_ip = req.access_route[0] if self.trust_forwarded_for else (req.remote_addr or "unknown")
        resp.set_header("X-Request-ID", req.context.request_id)


def api_key_from(req) -> str | None:
    """`X-API-Key: <key>` or `Authorization: Bearer <key>`; None when neither is sent."""
    key = req.get_header("X-API-Key")
    if key:
        return key.strip()
    auth = req.get_header("Authorization")
    if not auth:
        return None
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    raise APIError(401, "unsupported_credentials",
                   f"Authorization scheme '{scheme}' is not accepted here; send X-API-Key or Authorization: Bearer.",
                   headers={"WWW-Authenticate": 'Bearer realm="marketintel"'})


class Authentication:
    """Resolves the key to an agent. A key that is sent but wrong is a 401 on any route."""

    def __init__(self, agents: Agents):
        self.agents = agents

    async def process_request(self, req, resp):
        req.context.agent = None
        key = api_key_from(req)
        if key is None:
            return
        agent = await asyncio.to_thread(self.agents.by_key, key) if len(key) <= 200 else None
        if agent is None:
            raise APIError(401, "invalid_api_key", "The API key is unknown or was rotated.",
                           headers={"WWW-Authenticate": 'Bearer realm="marketintel"'})
        req.context.agent = agent


def require_agent(req) -> dict:
    if req.context.agent is None:
        raise APIError(401, "missing_credentials", "This route needs an API key (X-API-Key or Authorization: Bearer).",
                       headers={"WWW-Authenticate": 'Bearer realm="marketintel"'},
                       register="/api/v1/agents/register")
    return req.context.agent
