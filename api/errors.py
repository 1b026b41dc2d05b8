"""The two error shapes: 422 `{"detail": [...]}` and `{"error": {"code", "message", ...}}` for the rest."""
from __future__ import annotations

import logging

import falcon
import falcon.asgi

from marketintel.lightning.base import BackendAuthError, BackendResponseError, BackendUnavailable, LightningError

log = logging.getLogger(__name__)


class APIError(Exception):
    """An error a client should see: status, a stable code, a message and optional extra fields."""

    def __init__(self, status: int, code: str, message: str, headers: dict | None = None, meta: dict | None = None,
                 **extra):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers or {}
        self.meta = meta
        self.extra = extra

    def body(self) -> dict:
        body = {"error": {"code": self.code, "message": self.message, **self.extra}}
        if self.meta is not None:
            body["_meta"] = self.meta
        return body


class ValidationFailed(Exception):
    """422 in the standard validation-error shape."""

    def __init__(self, detail: list[dict]):
        super().__init__("validation failed")
        self.detail = detail


def invalid(loc: list, msg: str, type_: str = "value_error") -> ValidationFailed:
    return ValidationFailed([{"loc": loc, "msg": msg, "type": type_}])


async def handle_api_error(req, resp, ex: APIError, params):
    resp.status = ex.status
    resp.media = ex.body()
    for name, value in ex.headers.items():
        resp.set_header(name, value)


async def handle_validation(req, resp, ex: ValidationFailed, params):
    resp.status = 422
    resp.media = {"detail": ex.detail}


async def handle_malformed_media(req, resp, ex: falcon.MediaMalformedError, params):
    msg = ex.description or "Malformed request body"
    resp.status = 422
    resp.media = {"detail": [{"loc": ["body"], "msg": msg, "type": "json_invalid"}]}


async def handle_http_error(req, resp, ex: falcon.HTTPError, params):
    """Falcon's own errors (unknown route, bad method...) in our shape."""
    code = (ex.title or "error").lower().replace(" ", "_")
    resp.status = ex.status
    resp.media = {"error": {"code": code, "message": ex.description or ex.title}}
    for name, value in (ex.headers or {}).items():
        resp.set_header(name, value)


async def handle_unexpected(req, resp, ex: Exception, params):
    """Never a stack trace to the client; the log keeps it with the request id."""
    request_id = req.context.request_id
    log.exception("unhandled error on %s %s (request %s)", req.method, req.path, request_id)
    resp.status = 500
    resp.media = {"error": {"code": "internal_error", "message": "Internal error; nothing was charged.",
                            "request_id": request_id}}


async def handle_lightning_unavailable(req, resp, ex: BackendUnavailable, params):
    """The node did not answer: a temporary condition, so 503 with a retry hint (nothing was charged)."""
    log.warning("lightning node unavailable on %s %s: %s", req.method, req.path, ex)
    resp.status = 503
    resp.set_header("Retry-After", "30")
    resp.media = {"error": {"code": "lightning_unavailable",
                            "message": "The Lightning node did not answer; try again shortly. Nothing was charged.",
                            "request_id": req.context.request_id}}


async def handle_lightning_failure(req, resp, ex: LightningError, params):
    """The node answered but refused us or answered something we must not trust: an upstream failure."""
    log.error("lightning node error on %s %s: %s", req.method, req.path, ex)  # messages carry no secrets
    resp.status = 502
    resp.media = {"error": {"code": "lightning_backend_error",
                            "message": "The Lightning node gave an error or an answer that failed our checks. "
                                       "Nothing was charged.",
                            "request_id": req.context.request_id}}


def install(app: falcon.asgi.App) -> None:
    # Falcon picks the most specific handler by MRO, so the order here is not significant.
    app.add_error_handler(Exception, handle_unexpected)
    app.add_error_handler(falcon.HTTPError, handle_http_error)
    app.add_error_handler(falcon.MediaMalformedError, handle_malformed_media)
    app.add_error_handler(APIError, handle_api_error)
    app.add_error_handler(ValidationFailed, handle_validation)
    app.add_error_handler(BackendAuthError, handle_lightning_failure)
    app.add_error_handler(BackendResponseError, handle_lightning_failure)
    app.add_error_handler(BackendUnavailable, handle_lightning_unavailable)
