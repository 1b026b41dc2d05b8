"""Ask (POST /api/v1/intelligence/ask and /ask/async) and the poll target of every queued synthesis job (GET
/api/v1/synthesis/result/{request_id}). The work is api/synthesis_queries.py's; these routes read the request."""
from __future__ import annotations

import re

from api import response_docs_shapes as shapes
from api.errors import invalid
from api.responses import send_json
from api.schemas import IDEMPOTENCY_KEY_PATTERN, SYNTHESIS_REQUEST_ID_PATTERN, AskBody
from api.spec import Documented, api_spec
from api.synthesis_queries import Answer, SynthesisQueries
from charging.prices import ASK_PRICES

IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
REQUEST_ID = re.compile(SYNTHESIS_REQUEST_ID_PATTERN)
ASK_TEXT = ", ".join(f"{depth} {price}" for depth, price in ASK_PRICES.items())
QUEUED_TEXT = """Answered 200 with the result when the job ends within the wait window, else 202
`{request_id, status, poll, retry_after_s}` with `Location` and `Retry-After`: poll
`GET /api/v1/synthesis/result/{request_id}` with the same credential. The request is charged once, when it is
accepted, whatever happens after: a job that fails for good (after its retry) is refunded automatically and its
result says so (`status: failed`, `refunded: true`, why). An optional `Idempotency-Key` header (printable ASCII, at
most 200 characters) makes a repeat of the request with the same key return the same request id and result,
charged nothing more, while results are kept (MI_SYNTHESIS_RESULT_TTL_S, default 24 h); the same key with other
parameters is a 409. 503 before the first publish, nothing charged."""


def idempotency_key(req) -> str | None:
    key = req.get_header("Idempotency-Key")
    if key is not None and not IDEMPOTENCY_KEY.fullmatch(key):  # `match` lets a trailing newline through
        raise invalid(["header", "Idempotency-Key"], "printable ASCII without spaces, 1 to 200 characters",
                      "string_pattern_mismatch")
    return key


def send_answer(resp, answer: Answer) -> None:
    send_json(resp, answer.body, answer.status)
    for name, value in answer.headers.items():
        resp.set_header(name, value)


class _Ask:
    accepts_l402 = True  # an ask can be paid per request with L402, without a key
    anonymous_methods = ("POST",)  # no credential: a 402 with the invoice and the L402 challenge
    wait_for_answer = True

    def __init__(self, queries: SynthesisQueries):
        self.queries = queries

    async def _ask(self, req, resp) -> None:
        send_answer(resp, await self.queries.ask(req.context.payer, req.context.request_id, req.context.json,
                                                 idempotency_key(req), self.wait_for_answer))


RESPONSES = Documented("HTTP_401", "HTTP_402", "HTTP_409", "HTTP_422", "HTTP_500", "HTTP_503",
                       HTTP_200=shapes.SynthesisResult, HTTP_202=shapes.SynthesisQueued)


class AskResource(_Ask):
    priced = {"POST": ("ask:",)}
    @api_spec.validate(json=AskBody, tags=["intelligence"], resp=RESPONSES)
    async def on_post(self, req, resp):
        await self._ask(req, resp)


class AskAsyncResource(_Ask):
    priced = {"POST": ("ask:",)}
    wait_for_answer = False

    @api_spec.validate(json=AskBody, tags=["intelligence"], resp=RESPONSES)
    async def on_post(self, req, resp):
        await self._ask(req, resp)


# Documented after the fact: the texts share the price list's figures and the queued-job rules (one place each).
AskResource.on_post.__doc__ = f"""A question in natural language, answered from the service's own published figures:
the synthesis, a conviction score (0-100) with how it was computed, the regime context, `supporting_data` (every
figure with its module, field path, value and as-of date: GET /api/v1/intelligence/{{module}} shows the same value at
the same path of `data`), the modules consulted and why, caveats and follow-up queries.

Priced by depth (sats): {ASK_TEXT}. No free allowance: an ask reads several modules (see /api/v1/pricing `items`).
Paid from your credit pools and balance, or per request with L402 (the 402 carries the challenge). The wait window
is about 25 s (quick), 40 s (standard), 55 s (deep). {QUEUED_TEXT}"""
AskAsyncResource.on_post.__doc__ = f"""The same question, charged the same, answered 202 at once with the request id
to poll (200 only when an Idempotency-Key repeat finds the answer ready). {QUEUED_TEXT}"""


class SynthesisResultResource:
    accepts_l402 = True  # the L402 payer of a request reads its result with the same token (nothing is spent)

    def __init__(self, queries: SynthesisQueries):
        self.queries = queries

    @api_spec.validate(tags=["intelligence"],
                       resp=Documented("HTTP_401", "HTTP_404", "HTTP_422", "HTTP_500",
                                       HTTP_200=shapes.SynthesisResult, HTTP_202=shapes.SynthesisQueued))
    async def on_get(self, req, resp, request_id: str):
        """The result of a queued ask or content piece: 202 with its `status` (queued, running) while it runs,
        200 with the result once done, 500 `synthesis_failed` with `refunded: true` when it failed for good (its
        charge is given back automatically). Only the requesting agent's key, or the L402 token that paid for
        the request (same token, with its preimage), reads it; to anyone else, and for an unknown or expired id,
        it is 404. Results are kept for MI_SYNTHESIS_RESULT_TTL_S (default 24 h). Nothing is charged."""
        if not REQUEST_ID.match(request_id):
            raise invalid(["path", "request_id"], f"must match {SYNTHESIS_REQUEST_ID_PATTERN}",
                          "string_pattern_mismatch")
        record = await self.queries.result(req.context.payer, request_id)
        send_answer(resp, self.queries.answer(record))
