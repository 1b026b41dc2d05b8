"""Request validation and OpenAPI from the same pydantic declarations (spectree).

spectree answers 422 with a bare list and `loc` without its location; the `before` hook rewrites that
to `{"detail": [...]}` with `loc` starting at `query`, `body`, `path` or `header`. Model names end in
`Query`, `Body`, `Path` or `Headers`, which is how the location is known."""
from __future__ import annotations

import falcon
from spectree import Response, SpecTree

from api import openapi_prices, openapi_security
from api.console.pages import BASE as CONSOLE
from api.response_docs import attach as attach_response_docs
from api.schemas import PAYMENT_HASH_PATTERN, SYNTHESIS_REQUEST_ID_PATTERN
from charging.prices import ASK_PRICES, MODULE_PRICES
from charging.service import ORDER_TEXT

ASK_TEXT = ", ".join(f"{depth} {price}" for depth, price in ASK_PRICES.items())

# spectree declares every path parameter a bare string; the routes that answer 422 for a malformed one say which
# form they accept, so clients (and the fuzz) know a 422 there is theirs
PATH_PARAMETER_PATTERNS = {"payment_hash": PAYMENT_HASH_PATTERN, "request_id": SYNTHESIS_REQUEST_ID_PATTERN}

LOCATION_BY_SUFFIX = {"Query": "query", "Body": "body", "Path": "path", "Headers": "header"}

PROMISES = (
    "Every response carries `X-Request-ID` (the server's id of the request, and the ledger reference of anything it "
    "charged), `X-Data-Source` and `X-Simulated`.",
    "422 is `{\"detail\": [{\"loc\": [location, field, ...], \"msg\", \"type\"}]}`, the location being `query`, "
    "`body`, `path` or `header`.",
    "Every other error is `{\"error\": {\"code\", \"message\", ...}}` and never carries a stack trace: 401 bad or "
    "rotated key, 402 payment required, 403 tier or terms, 404 unknown module (with `did_you_mean`) or resource, 405 "
    "wrong method (with `Allow`), 409 conflict, 429 rate limited (with `Retry-After`), 500 internal error (a "
    "synthesis job that failed for good: `synthesis_failed`, refunded), 502 the Lightning node failed, 503 data "
    "not yet computed (`data_not_ready`), a module whose inputs have no history yet at the market date (`no_history`, "
    "with each series' first date and the published modules of its category that stand in), a module whose input "
    "series no configured live source serves "
    "(`source_unavailable`, with `series` and the `settings`, such as `MI_FRED_API_KEY`, that would bring them), a "
    "part the service depends on down (`dependency_unavailable` with `dependency`: `redis` or "
    "`ledger`, answered within about 2 s, nothing charged) or the Lightning node unreachable (with `Retry-After`). "
    "Only /health answers in its own "
    "shape: its report, with 503 when a check fails.",
    "Every 402 carries `error.invoice` (a BOLT11 `payment_request` that credits a balance, with its `payment_hash` "
    "and `amount_sats`) and a `_meta` with `charged_sats` 0. A 402 for something that can be paid per request "
    "(module queries, the full catalog) also carries the L402 challenge for `error.price_sats`, in "
    "`WWW-Authenticate: L402 macaroon=\"...\", invoice=\"...\", version=\"0\", token=\"...\"` (the token is the "
    "macaroon, for clients of the current L402 spec) and in `error.l402`. An L402 credential that does not pay "
    "(spent, expired, unpaid, for another resource, a wrong preimage) is a 402 too, with its `l402_*` code and a fresh "
    "challenge, so a client that resends a cached token can pay again; nothing is charged. The same 402 offers the "
    "invoice as an MPP challenge too (`Payment id=..., method=\"lightning\", intent=\"charge\", ...` after the L402 "
    "one, and in `error.mpp`; alone for a request with `Accept-Payment: lightning/charge`), paid with "
    "`Authorization: Payment <base64url JSON>` and answered with `Payment-Receipt`.",
    "`X-Max-Cost-Sats: <n>` on any request: it is never charged more than n sats in all; a price past it is a 402 "
    "`max_cost_exceeded` naming the price, nothing charged (422 for a value that is not a whole number).",
    "Responses that serve data or charge (module queries, the batch and each result in it, the pulse, the full "
    "catalog, and every 402) carry `_meta` with `request_id` and `charged_sats`; module results also carry "
    "`data_source`, `simulated`, `cache`, `price_sats`, `paid_with` and `free_queries_left`, and the pulse "
    "`data_source`, `simulated` and `cache`.",
    "Routes that need no credential never refuse one: a valid key identifies the caller, and anything else sent "
    "(an unknown key, another scheme, an L402 credential) is ignored, as `X-Credentials-Ignored` says.",
    "Module results and the pulse carry three dates: `as_of`, the market date the answer is for (nothing "
    "published after that day was used; with `?as_of=` the moment asked, and `time_travel: true`); `data_as_of`, "
    "the date of the latest observation among the essential inputs the figures rest on (a close dated the day "
    "before `as_of` says so here; each input's own last date is "
    "`data_sources.series[].last_observation`); and `generated_at`, the clock's time when the figures were "
    "computed. In the `full` and `agent` formats, `provenance` maps every number in `data` (the pulse: in "
    "`regime`, `signals`, `correlation_alerts` and `composite_score`) by its dotted path to its `operation` in a "
    "few words, `observations` (series to the exact dates used) and `through` (series to the last date of the "
    "stretch of history used). A figure made from named observations alone has `recompute`: `kind` (level, "
    "difference, ratio or pct_change of those values in the order listed), times `scale` (1 when absent), rounded "
    "to `decimals`. `scope: module` marks a figure resting on the module's inputs as a whole; an entry naming no "
    "input is a stated parameter of the method or a count from the calendar, resting on no observation. A figure "
    "resting on a series revised after its first release (the statistical agencies' estimates, the money stock, bank "
    "credit) says `vintage: latest`: the latest revision held, not the value first published; as of a past moment, "
    "`vintage: first_release` where every observation it reads came with its value as first published (FRED's "
    "real-time periods). A price "
    "is `close` only when it traded; an adjusted one is `adj_close` with its `adjustment` named.",
)

DESCRIPTION = f"""Market intelligence for AI agents: structured JSON on equities, rates and credit, macro,
volatility, FX, commodities and crypto. Pay per query in sats over Lightning (a prepaid balance, or per
request with L402 and no registration); one free query per module per day; the cross-market pulse is free.

**Credentials.** `X-API-Key: <key>` or `Authorization: Bearer <key>` (keys are shown once at registration
and stored only as hashes); on the routes that take it (module queries, the full catalog, ask, parallels, the
prediction record) `Authorization: L402 <macaroon>:<preimage hex>` pays one request without registering. No
credential is needed for the pulse, catalog preview, pricing, SLA, health, the docs, subscription plans, payment
verification, the content types and chart files.

**Paying.** {ORDER_TEXT} Prices (charging/prices.py, the one price list): a standard module
{MODULE_PRICES["S"]} sats and a proprietary one {MODULE_PRICES["P"]} sats per query; ask by depth
{ASK_TEXT} sats (no free allowance: an ask reads many modules); content per type and unified context by depth
(with a tiered key); the full catalog free with a key, else per request with L402. Every price and why:
GET /api/v1/pricing.

**Queued work** (ask, content generation: RQ jobs). The request is charged once, then waits for its job up to a
window (ask: quick 25 s, standard 40 s, deep 55 s; content 55 s; settings): 200 with the result, or 202 with
`request_id`, `poll`, `Location` and `Retry-After` while the job keeps running (`/ask/async` and
`/generate/async` answer 202 at once). `GET /api/v1/synthesis/result/{{request_id}}` answers 202 while it runs, 200
with the result, and 404 to anyone but the caller who asked (or the L402 payer of that request). Results are kept
24 hours. An `Idempotency-Key` header makes a repeat return the same request, charged nothing more. A job that
fails for good (after its retry) or is lost is refunded automatically, exactly once, and answers 500
`synthesis_failed` with `refunded: true`. Every figure an answer or a piece cites is one of the service's published
figures: `supporting_data` / `key_data` name its module, its dotted `field` inside that module's `data`, its
`value` and `as_of`.

**Promises** (tests/api/test_openapi_promises.py checks each against real responses):

""" + "\n".join(f"{n}. {text}" for n, text in enumerate(PROMISES, 1)) + """

All data and analysis is educational and informational only, not financial advice."""


class Documented(Response):
    """spectree's Response whose models document the bodies in /openapi.json and are not checked at run time: a
    payload that grew a field would otherwise turn into a 500. The bodies of the error statuses are added to the
    document by api/response_docs.py."""

    def find_model(self, code: int) -> None:  # the run-time check's lookup
        return None


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


def openapi_document(resource_of=None, module_names: list[str] = (), prices=None) -> dict:
    """The spec spectree generates, with the standard 422 shape in place of spectree's own model, the documented
    response bodies (each module's, given its name), and (given `resource_of`, a path template's resource) each
    operation's credentials and (given the price list) what it charges."""
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
    # spectree writes a route's literal dots as regex escapes (`/\.well-known/...`): give them back their name
    # the console's pages (api/console) are for people in a browser, not operations an agent calls
    spec["paths"] = {name.replace("\\.", "."): item for name, item in spec.get("paths", {}).items()
                     if not name.startswith(CONSOLE)}
    for path in spec["paths"].values():
        for operation in path.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path" and parameter["name"] in PATH_PARAMETER_PATTERNS:
                    parameter["schema"]["pattern"] = PATH_PARAMETER_PATTERNS[parameter["name"]]
            responses = operation.get("responses", {})
            if "422" in responses:
                responses["422"] = {"description": "Validation error", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/ValidationErrorResponse"}}}}
    # every other status's body, ErrorResponse among them (api/response_docs.py)
    attach_response_docs(spec, list(module_names))
    if resource_of is not None:
        openapi_security.declare(spec, resource_of)
        if prices is not None:
            openapi_prices.declare(spec, resource_of, prices)
    return spec
