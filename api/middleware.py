"""App-wide concerns: request ids, client address, and who is calling."""
from __future__ import annotations

import asyncio
import re
import uuid

from api.errors import APIError
from api.l402 import L402Refused, is_l402_scheme, parse_authorization
from warehouse.ledger import Agents

REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


class RequestContext:
    def __init__(self, trust_forwarded_for: bool, data_source: str, simulated: bool):
        self.trust_forwarded_for = trust_forwarded_for
        # every response says where the data comes from, also those without a `_meta` (accounts, payments)
        self.source_headers = {"X-Data-Source": data_source, "X-Simulated": "true" if simulated else "false"}

    async def process_request(self, req, resp):
        # Our id keys debits and refunds, so it is always made here; a client's own id is only echoed.
        req.context.request_id = uuid.uuid4().hex
        resp.set_header("X-Request-ID", req.context.request_id)
        resp.set_headers(self.source_headers)
        given = req.get_header("X-Request-ID")
        if given and REQUEST_ID.match(given):
            resp.set_header("X-Client-Request-ID", given)
        req.context.client_ip = self._client_ip(req)

    def _client_ip(self, req) -> str:
        """Behind one trusted proxy the client is the entry that proxy appended: the last one. Entries
        further left were written by the client and prove nothing."""
        if self.trust_forwarded_for:
            forwarded = req.get_header("X-Forwarded-For")
            if forwarded and forwarded.rsplit(",", 1)[-1].strip():
                return forwarded.rsplit(",", 1)[-1].strip()
        return req.remote_addr or "unknown"


def api_key_from(req) -> str | None:
    """`X-API-Key: <key>` or `Authorization: Bearer <key>`; None when neither is sent (an L402 credential in
    Authorization is read by `l402_from`)."""
    key = req.get_header("X-API-Key")
    if key:
        return key.strip()
    auth = req.get_header("Authorization")
    if not auth:
        return None
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    if is_l402_scheme(scheme):
        return None
    raise APIError(401, "unsupported_credentials",
                   f"Authorization scheme '{scheme}' is not accepted here; send X-API-Key, Authorization: Bearer "
                   "or (on the routes that take it) Authorization: L402.",
                   headers={"WWW-Authenticate": 'Bearer realm="marketintel"'})


def l402_from(req):
    """The parsed `Authorization: L402|LSAT <macaroon>:<preimage>` credential, or None. Only its form is
    checked here; whether it pays for the requested resource is decided where the resource is known."""
    auth = req.get_header("Authorization")
    if not auth or not is_l402_scheme(auth.partition(" ")[0]):
        return None
    try:
        return parse_authorization(auth)
    except L402Refused as refused:
        raise APIError(401, refused.code, refused.message, headers={"WWW-Authenticate": 'L402 realm="marketintel"'})


class Authentication:
    """Resolves the key to an agent. A key that is sent but wrong is a 401 on any route. An L402 credential
    is parsed onto `req.context.l402`; a route that does not take one (a resource without `accepts_l402`)
    answers 401 `l402_not_accepted` rather than silently ignoring a payment the caller meant to make."""

    def __init__(self, agents: Agents):
        self.agents = agents

    async def process_resource(self, req, resp, resource, params):
        if req.context.l402 is not None and resource is not None and not getattr(resource, "accepts_l402", False):
            raise APIError(401, "l402_not_accepted",
                           "This route does not take an L402 credential; it was not spent. L402 pays for module "
                           "queries (/api/v1/intelligence/{module_name}) and the full catalog (/api/v1/catalog).",
                           headers={"WWW-Authenticate": 'Bearer realm="marketintel"'})

    async def process_request(self, req, resp):
        req.context.agent = None
        req.context.l402 = l402_from(req)
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
