"""Every failure as the answer it gets, decided once: REST's error handlers, MCP's error results and each batch
item's entry all render `Refusals.of`. The charging service's refusals, a Lightning node failing and a part the
service depends on being down become their APIError (status, stable code, headers); anything else is an internal
error whose trace stays in the log with the request id, never in the answer."""
from __future__ import annotations

import logging

import falcon

from api.errors import (
    APIError,
    ValidationFailed,
    dependency_error,
    failed_dependency,
    handle_http_error,
    handle_malformed_media,
    handle_validation,
)
from api.payment_errors import cap_reached, l402_rejected, max_cost_exceeded, negotiated, payment_required
from charging.errors import L402Rejected, MaxCostExceeded, PaymentRequired, SpendingCapReached
from marketintel.lightning.base import BackendAuthError, BackendResponseError, BackendUnavailable
from marketintel.settings import get_settings

log = logging.getLogger(__name__)


class Refusals:
    def __init__(self, data_source: str, simulated: bool):
        self.source = (data_source, simulated)  # a 402's `_meta` says where the data would have come from

    def of(self, ex: Exception, request_id: str | None, where: str) -> APIError:
        """The answer to `ex`, raised while serving `where` (a route, an MCP call, a batch item)."""
        if isinstance(ex, APIError):
            return ex
        if isinstance(ex, PaymentRequired):
            return payment_required(ex, *self.source)
        if isinstance(ex, L402Rejected):
            return l402_rejected(ex, *self.source)
        if isinstance(ex, SpendingCapReached):
            return cap_reached(ex, *self.source)
        if isinstance(ex, MaxCostExceeded):
            return max_cost_exceeded(ex, *self.source)
        if isinstance(ex, BackendUnavailable):  # a temporary condition: 503 with a retry hint
            log.warning("lightning node unavailable on %s: %s", where, ex)
            return APIError(503, "lightning_unavailable", "The Lightning node did not answer; try again shortly. "
                            "Nothing was charged.", headers={"Retry-After": "30"}, request_id=request_id)
        if isinstance(ex, (BackendAuthError, BackendResponseError)):  # refused us, or answered what we must not trust
            log.error("lightning node error on %s: %s", where, ex)  # its messages carry no secrets
            return APIError(502, "lightning_backend_error", "The Lightning node gave an error or an answer that "
                            "failed our checks. Nothing was charged.", request_id=request_id)
        dependency = failed_dependency(ex)  # also when the code wrapped it in an error of its own
        if dependency is not None:
            log.warning("%s unavailable on %s (request %s): %s: %s", dependency, where, request_id,
                        type(ex).__name__, ex)
            return dependency_error(dependency, request_id, get_settings().dependency_retry_after_s)
        log.error("unhandled error on %s (request %s)", where, request_id, exc_info=ex)
        return APIError(500, "internal_error", "Internal error; nothing was charged.", request_id=request_id)

    def install(self, app) -> None:
        """The REST handlers: Falcon picks the most specific by MRO, so the order here is not significant."""
        async def handle(req, resp, ex: Exception, params):
            error = self.of(ex, req.context.request_id, f"{req.method} {req.path}")
            resp.status = error.status
            resp.media = error.body()
            for name, value in error.headers.items():
                resp.set_header(name, value)
            if error.status == 402:
                resp.set_header("Cache-Control", "no-store")  # a challenge is for this request: never cached
                if chosen := negotiated(req.get_header("Accept-Payment"), error.extra):
                    resp.set_header("WWW-Authenticate", chosen)

        app.add_error_handler(Exception, handle)
        app.add_error_handler(falcon.HTTPError, handle_http_error)
        app.add_error_handler(falcon.MediaMalformedError, handle_malformed_media)
        app.add_error_handler(ValidationFailed, handle_validation)
