"""The credentials of each operation in the OpenAPI document, read from the same resource attributes the
Authentication middleware acts on (api/middleware.py), so the document says what the server does:

- `public = True` (or the method in `public_methods`): no credential needed; a valid key identifies the caller.
- otherwise an API key (`X-API-Key`, or the same key as a Bearer token), and where `accepts_l402 = True` an L402
  credential instead; `anonymous_methods` lists the methods that also answer a caller with no credential (an
  anonymous free query, or a 402 whose challenge is the way to pay).

The event stream's `Last-Event-ID` header (resume after that event) is declared here too: spectree has no header
models on a GET without a validated header class."""
from __future__ import annotations

from collections.abc import Callable

SCHEMES = {
    "ApiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key",
               "description": "The key POST /api/v1/agents/register returns (shown once, stored only as a hash)."},
    "Bearer": {"type": "http", "scheme": "bearer",
               "description": "The same API key as `Authorization: Bearer <key>`."},
    "L402": {"type": "apiKey", "in": "header", "name": "Authorization",
             "description": "`Authorization: L402 <macaroon>:<preimage hex>`: pays one request without registering. "
                            "The macaroon and the invoice to pay come in the `WWW-Authenticate: L402` challenge of "
                            "the route's 402 (also in the body's `error.l402`); the preimage is the invoice's proof "
                            "of payment. Spent once; an `LSAT` scheme name is accepted too."},
    "Payment": {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Authorization: Payment <base64url JSON>`: MPP (draft-ryan-httpauth-payment) with "
                               "the Lightning `charge` intent, paying the same invoice as the L402 challenge beside "
                               "it: `{\"challenge\": {the echoed id, realm, method, intent, request, expires}, "
                               "\"payload\": {\"preimage\": hex}}`. The challenge comes in `WWW-Authenticate: "
                               "Payment ...` (alone when the request sends `Accept-Payment: lightning/charge`) and in "
                               "`error.mpp`; a paid answer carries `Payment-Receipt`. One payment pays one request, "
                               "whichever protocol presents it."},
}
KEY = [{"ApiKey": []}, {"Bearer": []}]
LAST_EVENT_ID = {"name": "Last-Event-ID", "in": "header", "required": False,
                 "description": "Resume after this event: the `id` of the last event received (`<seq>-0`). EventSource "
                                "sends it by itself when it reconnects; `last_event_id` in the query does the same.",
                 "schema": {"type": "string", "pattern": r"^\d+-0$"}}
STREAM = "/api/v1/events/stream"


def security_of(resource, method: str) -> list[dict]:
    method = method.upper()
    if getattr(resource, "public", False) or method in getattr(resource, "public_methods", ()):
        return [{}, *KEY]
    out = [*KEY, *([{"L402": []}, {"Payment": []}] if getattr(resource, "accepts_l402", False) else [])]
    return [{}, *out] if method in getattr(resource, "anonymous_methods", ()) else out


def declare(spec: dict, resource_of: Callable[[str], object | None]) -> None:
    """Security schemes, each operation's `security`, and the stream's `Last-Event-ID`."""
    spec.setdefault("components", {})["securitySchemes"] = SCHEMES
    for path, item in spec.get("paths", {}).items():
        resource = resource_of(path)
        for method, operation in item.items():
            if resource is not None:
                operation["security"] = security_of(resource, method)
            if path == STREAM and method == "get":
                operation.setdefault("parameters", []).append(LAST_EVENT_ID)
