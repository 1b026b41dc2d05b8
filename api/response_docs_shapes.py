"""The response shapes shared by many routes, written for the OpenAPI document only (api/response_docs.py attaches
them; spectree never validates a response with them, so a payload that grows is never a 500).

Every model allows additional properties: payloads grow, and a client must ignore keys it does not know. A field
without a default is one the route always answers; `X | None` says the value may be null, not that the key may
be absent."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Documented(BaseModel):
    """The base of every documented body: additional properties allowed."""

    model_config = ConfigDict(extra="allow")


class ChargeMeta(Documented):
    """`_meta` of a response that serves data or charges (api/spec.py PROMISES 5)."""

    request_id: str
    charged_sats: int


class PulseMeta(ChargeMeta):
    data_source: str
    simulated: bool
    cache: dict[str, Any]


class ModuleMeta(PulseMeta):
    """`_meta` of a module result, a product (parallels, predictions, regime...) and each batch result."""

    price_sats: int
    paid_with: str
    free_queries_left: int


class UnpaidMeta(ChargeMeta):
    """`_meta` of a 402: what it would have cost, and that nothing was charged (api/payment_errors.py)."""

    price_sats: int


class ErrorBody(Documented):
    code: str
    message: str
    request_id: str | None = Field(None, description="the request's id, on 500, 502 and 503 from the server side")
    retry_after_seconds: int | None = Field(None, description="429 and some 503: seconds before a retry (also the "
                                                              "`Retry-After` header)")
    did_you_mean: list[str] | None = Field(None, description="404 unknown module: the close names")
    series: list[str] | None = Field(None, description="503 source_unavailable: the series the module reads that "
                                                         "no configured live source serves")
    settings: list[str] | None = Field(None, description="503 source_unavailable: the settings (free API keys) that "
                                                           "would bring those series")


class ErrorResponse(Documented):
    """`{"error": {"code", "message", ...}}`: every error but 422 (and /health's report)."""

    error: ErrorBody
    meta: dict[str, Any] | None = Field(None, alias="_meta")


class Invoice(Documented):
    payment_request: str
    payment_hash: str
    amount_sats: int


class PaymentErrorBody(ErrorBody):
    invoice: Invoice = Field(description="a BOLT11 invoice that credits a balance (POST /api/v1/agents/topup)")
    l402: dict[str, Any] | None = Field(None, description="the L402 challenge (macaroon, invoice), when the item "
                                                          "can be paid per request; also in `WWW-Authenticate`")


class PaymentRequiredResponse(Documented):
    """402: the error with its invoice, and a `_meta` saying nothing was charged."""

    error: PaymentErrorBody
    meta: UnpaidMeta = Field(alias="_meta")


class SynthesisMeta(ChargeMeta):
    status: str


class SynthesisQueued(Documented):
    """202 of ask, content and the synthesis result while the job runs (api/synthesis_queries.py `answer`)."""

    request_id: str
    status: str
    poll: str
    retry_after_s: int
    meta: SynthesisMeta = Field(alias="_meta")


class SynthesisResult(Documented):
    """200 of ask, content and the synthesis result: the job's result (an answer or a piece) and `_meta`."""

    meta: SynthesisMeta = Field(alias="_meta")


class HealthReport(Documented):
    """/health's own shape, 200 and 503 alike: 503 when a check fails."""

    status: str
    checks: dict[str, str]
    data_source: str
    simulated: bool
    data_age_seconds: float | None
    uptime_seconds: float


class ModuleResult(Documented):
    """A module result: the envelope common to every format (`full`, `compact`, `prompt`, `agent`). `full` and
    `agent` add `data`, `signals`, `summary`, `data_sources`, `related_modules`, `provenance` (and `agent` its
    `deltas`, `temporal_context`, `follow_up_actions`); `compact` adds flat dotted keys; `prompt` adds `prompt`."""

    module: str
    as_of: str
    data_as_of: str | None
    meta: ModuleMeta = Field(alias="_meta")
