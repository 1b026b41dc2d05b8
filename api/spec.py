"""Request validation and OpenAPI from the same pydantic declarations (spectree).

spectree answers 422 with a bare list and `loc` without its location; the `before` hook rewrites that
to `{"detail": [...]}` with `loc` starting at `query`, `body`, `path` or `header`. Model names end in
`Query`, `Body`, `Path` or `Headers`, which is how the location is known."""
from __future__ import annotations

import falcon
from spectree import SpecTree

LOCATION_BY_SUFFIX = {"Query": "query", "Body": "body", "Path": "path", "Headers": "header"}

DESCRIPTION = """Market intelligence for AI agents: structured JSON on equities, rates and credit, macro,
volatility, FX, commodities and crypto. Pay per query in sats over Lightning; one free query per module
per day; the cross-market pulse is free.

**Errors.** 422 is `{"detail": [{"loc": [location, field], "msg", "type"}]}` (location is `query`,
`body`, `path` or `header`). Every other error is `{"error": {"code", "message", ...}}`: 401 bad or
rotated key, 402 payment required (carries `invoice` with a BOLT11 `payment_request` for the price),
404 unknown module (carries `did_you_mean`), 429 rate limited (with `Retry-After`), 503 data not yet
available. Nothing is charged for a failed request.

**Credentials.** `X-API-Key: <key>` or `Authorization: Bearer <key>`. Keys are shown once at
registration and stored only as hashes.

**Every response's `_meta`** says `data_source`, `simulated`, `cache` (age and source of the served copy),
`price_sats`, `charged_sats`, `free_queries_left` and `request_id`.

All data and analysis is educational and informational only, not financial advice."""


def _rewrite_422(req, resp, err, instance, *rest) -> None:
    if err is None:
        return
    location = next((loc for suffix, loc in LOCATION_BY_SUFFIX.items() if err.title.endswith(suffix)), "body")
    resp.status = falcon.HTTP_422
    resp.media = {"detail": [
        {"loc": [location, *e["loc"]], "msg": e["msg"], "type": e["type"]} for e in err.errors(include_url=False)
    ]}


api_spec = SpecTree(
    "falcon-asgi",
    title="Market Intelligence for AI Agents",
    version="2.0.0",
    description=DESCRIPTION,
    path="apidoc",
    before=_rewrite_422,
    validation_error_status=422,
    annotations=False,
)


def openapi_document() -> dict:
    """The spec spectree generates, with the standard 422 shape in place of spectree's own model."""
    spec = api_spec.spec
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    schemas["ValidationErrorResponse"] = {
        "type": "object",
        "properties": {"detail": {"type": "array", "items": {
            "type": "object",
            "properties": {"loc": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
                           "msg": {"type": "string"}, "type": {"type": "string"}},
            "required": ["loc", "msg", "type"]}}},
        "required": ["detail"],
    }
    schemas["ErrorResponse"] = {
        "type": "object",
        "properties": {"error": {"type": "object", "properties": {
            "code": {"type": "string"}, "message": {"type": "string"}}, "required": ["code", "message"],
            "additionalProperties": True}},
        "required": ["error"],
    }
    for path in spec.get("paths", {}).values():
        for operation in path.values():
            responses = operation.get("responses", {})
            if "422" in responses:
                responses["422"] = {"description": "Validation error", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/ValidationErrorResponse"}}}}
    return spec
