"""App-wide concerns: request ids, client address, who is calling, and closing shared clients at shutdown."""
from __future__ import annotations

import re
import time
import uuid

from api.errors import APIError, ValidationFailed, tier_required
from api.key_directory import KeyDirectory
from api.text_fields import is_safe_line
from charging.attempt import MaxCost, Payer
from charging.l402 import L402Refused, is_l402_scheme, parse_authorization
from charging.mpp import is_payment_scheme, payment_hash_of, receipt
from charging.mpp import parse_authorization as parse_payment
from intel.events.types import TIERS
from marketintel import logs

REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")
MAX_KEY_CHARS = 200
MAX_COST_HEADER = "X-Max-Cost-Sats"
BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="marketintel"'}
# Said on a public route that ignored what was sent: the credential's problem, as a stable code.
IGNORED_HEADER = "X-Credentials-Ignored"


class RequestContext:
    def __init__(self, trust_forwarded_for: bool, data_source: str, simulated: bool):
        self.trust_forwarded_for = trust_forwarded_for
        # every response says where the data comes from, also those without a `_meta` (accounts, payments)
        self.source_headers = {"X-Data-Source": data_source, "X-Simulated": "true" if simulated else "false"}

    async def process_request(self, req, resp):
        # Our id keys debits and refunds, so it is always made here; a client's own id is only echoed.
        req.context.request_id = uuid.uuid4().hex
        logs.REQUEST_ID.set(req.context.request_id)  # this request's task: every log line it writes carries it
        logs.AGENT_ID.set(None)
        resp.set_header("X-Request-ID", req.context.request_id)
        resp.set_headers(self.source_headers)
        given = req.get_header("X-Request-ID")
        if given and REQUEST_ID.fullmatch(given):  # fullmatch: `$` alone lets a trailing newline through
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


class CredentialRefused(Exception):
    """What was sent is not a credential this route can take; `code` names why."""

    def __init__(self, code: str, message: str, challenge: str = BEARER_CHALLENGE["WWW-Authenticate"]):
        super().__init__(message)
        self.code, self.message, self.challenge = code, message, challenge

    def as_api_error(self) -> APIError:
        return APIError(401, self.code, self.message, headers={"WWW-Authenticate": self.challenge})


def api_key_from(req) -> str | None:
    """`X-API-Key: <key>` or `Authorization: Bearer <key>`; None when neither is sent (an L402 or MPP credential in
    Authorization is read by `payment_from`)."""
    key = req.get_header("X-API-Key")
    if key:
        return printable_key(key.strip())
    auth = req.get_header("Authorization")
    if not auth:
        return None
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return printable_key(value.strip())
    if is_l402_scheme(scheme) or is_payment_scheme(scheme):
        return None
    raise CredentialRefused("unsupported_credentials",
                            f"Authorization scheme '{scheme}' is not accepted here; send X-API-Key, Authorization: "
                            "Bearer or (on the routes that take it) Authorization: L402 or Payment.")


def printable_key(key: str) -> str:
    """A key is printable text (ours are URL-safe ASCII): one with a control character is refused as a credential
    (401, or ignored on a public route) before it is looked up, logged or hashed into a Redis key."""
    if not is_safe_line(key):
        raise CredentialRefused("malformed_api_key", "The API key holds a control character; keys are printable text.")
    return key


def payment_from(authorization: str | None):
    """(L402 credential, MPP credential) an Authorization value carries (`L402|LSAT <macaroon>:<preimage>` or
    `Payment <base64url JSON>`), at most one of them; (None, None) for any other scheme. Only the form is checked
    here; whether it pays for the requested resource is decided where the resource is known. CredentialRefused when
    it cannot be read."""
    scheme = (authorization or "").partition(" ")[0]
    try:
        if is_l402_scheme(scheme):
            return parse_authorization(authorization), None
        if is_payment_scheme(scheme):
            return None, parse_payment(authorization)
    except L402Refused as refused:
        realm = "L402" if is_l402_scheme(scheme) else "Payment"
        raise CredentialRefused(refused.code, refused.message, f'{realm} realm="marketintel"') from None
    return None, None


def max_cost_from(req) -> MaxCost | None:
    """`X-Max-Cost-Sats: <n>`: the most the request may be charged in all (charging.errors.MaxCostExceeded past
    it); 422 unless a whole number of sats, 0 or more."""
    value = req.get_header(MAX_COST_HEADER)
    if value is None:
        return None
    if not value.strip().isdigit() or len(value.strip()) > 18:
        raise ValidationFailed([{"loc": ["header", MAX_COST_HEADER], "msg": "a whole number of sats, 0 or more",
                                 "type": "int_parsing"}])
    return MaxCost(int(value.strip()))


class Authentication:
    """Resolves the caller once routing has found the resource, into `req.context.payer`
    (charging.attempt.Payer; `req.context.agent` reads its agent).

    On a public resource (`public = True`, or its method in `public_methods`: the routes interface.md lists as
    needing no credential) a valid key identifies the caller and anything else (an unknown key, another scheme,
    an L402 credential) is ignored, as the `X-Credentials-Ignored` header says (e.g. `invalid_api_key,
    l402_not_needed`), never refused. Elsewhere a key that is sent but wrong is a 401, and an L402 credential on a
    resource that does not take one (no `accepts_l402`) is a 401 `l402_not_accepted` rather than a payment
    silently ignored.

    A resource with `checks_key = True` has the key checked in its own round trip (api/one_trip.py): a key this
    process has seen is taken from memory here, and `req.context.key_check` says what the check expects."""

    def __init__(self, directory: KeyDirectory):
        self.directory = directory

    async def process_request(self, req, resp):
        req.context.max_cost = max_cost_from(req)
        req.context.payer = Payer.of(None, req.context.client_ip, max_cost=req.context.max_cost)

    async def process_response(self, req, resp, resource, req_succeeded):
        """An MPP credential that paid a delivered request gets its `Payment-Receipt`."""
        payer = getattr(req.context, "payer", None)  # None when the request was refused before it was resolved
        credential = payer.mpp if payer is not None else None
        if credential is not None and credential.spent and 200 <= resp.status_code < 300:
            resp.set_header("Payment-Receipt", receipt(credential.challenge_id, payment_hash_of(credential),
                                                       time.time()))
            resp.set_header("Cache-Control", "private")

    async def process_resource(self, req, resp, resource, params):
        if resource is None:
            return
        if getattr(resource, "public", False) or req.method in getattr(resource, "public_methods", ()):
            await self._identify(req, resp)
            return
        try:
            agent, l402, mpp = await self._credentials(req, getattr(resource, "accepts_l402", False),
                                                       getattr(resource, "checks_key", False))
        except CredentialRefused as refused:
            raise refused.as_api_error() from None
        self._set_caller(req, agent, l402, mpp)

    async def _identify(self, req, resp) -> None:
        """A public route: a valid key identifies the caller; anything else is ignored, and said so."""
        ignored = []
        auth = req.get_header("Authorization")
        if auth and is_l402_scheme(auth.partition(" ")[0]):
            ignored.append("l402_not_needed")  # nothing to pay for here: not spent
        if auth and is_payment_scheme(auth.partition(" ")[0]):
            ignored.append("payment_not_needed")
        try:
            key = api_key_from(req)
        except CredentialRefused as refused:
            key = None
            ignored.append(refused.code)
        agent = await self._agent(key) if key is not None else None
        if key is not None and agent is None:
            ignored.append("invalid_api_key")
        if ignored:
            resp.set_header(IGNORED_HEADER, ", ".join(ignored))
        self._set_caller(req, agent, None)

    @staticmethod
    def _set_caller(req, agent: dict | None, l402, mpp=None) -> None:
        if agent is not None or l402 is not None or mpp is not None:
            req.context.payer = Payer.of(agent, req.context.client_ip, l402, mpp, req.context.max_cost)
        if agent is not None:
            logs.AGENT_ID.set(agent["agent_id"])  # the public id, never the key

    async def _agent(self, key: str) -> dict | None:
        return await self.directory.agent(key) if len(key) <= MAX_KEY_CHARS else None

    async def _credentials(self, req, accepts_l402: bool, checks_key: bool):
        l402, mpp = payment_from(req.get_header("Authorization"))
        if (l402 is not None or mpp is not None) and not accepts_l402:
            raise CredentialRefused("l402_not_accepted",
                                    "This route does not take a per-request payment (L402 or MPP); nothing was "
                                    "spent. They pay for module queries (/api/v1/intelligence/{module_name}) and "
                                    "the full catalog (/api/v1/catalog).")
        key = api_key_from(req)
        if key is None:
            return None, l402, mpp
        remembered = self.directory.remembered(key) if checks_key and len(key) <= MAX_KEY_CHARS else None
        if remembered is not None:
            req.context.key_check = (remembered.key, remembered.entry)
            return remembered.agent, l402, mpp
        agent = await self._agent(key)
        if agent is None:
            raise CredentialRefused("invalid_api_key", "The API key is unknown or was rotated.")
        return agent, l402, mpp


async def recheck_key(req, directory: KeyDirectory, entry: bytes | None) -> Payer:
    """For a `checks_key` resource whose check found `entry` instead of the one expected: the agent it names
    (SQL when the key is not in the directory) is the request's new payer. 401 when the key was rotated away."""
    found = directory.found(req.context.key_check[0], entry)
    if found is False:
        found = await directory.fill(api_key_from(req))
    if found is None:
        raise CredentialRefused("invalid_api_key", "The API key is unknown or was rotated.").as_api_error()
    payer = req.context.payer
    req.context.payer = Payer.of(found.agent, req.context.client_ip, payer.l402, payer.mpp, payer.max_cost)
    req.context.key_check = None
    return req.context.payer


class SharedClients:
    """Closes the process's Redis pool and SQL engine when the server shuts down."""

    def __init__(self, services):
        self.services = services

    async def process_shutdown(self, scope, event):
        await self.services.close()


def require_agent(req) -> dict:
    if req.context.agent is None:
        raise APIError(401, "missing_credentials", "This route needs an API key (X-API-Key or Authorization: Bearer).",
                       headers=BEARER_CHALLENGE, register="/api/v1/agents/register")
    return req.context.agent


def require_tier(req, needed: str, what: str) -> dict:
    """The caller's agent, at `needed` or above; 401 without a key, 403 below it."""
    agent = require_agent(req)
    if TIERS.index(agent["tier"]) < TIERS.index(needed):
        more = " or higher" if needed != TIERS[-1] else ""
        raise tier_required(f"{what} needs the {needed} tier{more}.", agent["tier"], needed)
    return agent
