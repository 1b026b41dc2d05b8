"""The two error shapes: 422 `{"detail": [...]}` and `{"error": {"code", "message", ...}}` for the rest."""
from __future__ import annotations

import logging
import sqlite3

import falcon
import falcon.asgi
import redis.exceptions
import sqlalchemy.exc

from marketintel.lightning.base import BackendAuthError, BackendResponseError, BackendUnavailable, LightningError
from marketintel.settings import get_settings

log = logging.getLogger(__name__)

# What a failure of each dependency looks like from here: redis-py's connection errors and timeouts (also a full
# pool, a server still loading its data after a restart), and SQLAlchemy's (a refused or lost connection, no free
# connection in the pool within its timeout, a statement timeout, SQLite's lock wait running out).
REDIS_FAILURES = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
LEDGER_FAILURES = (sqlalchemy.exc.OperationalError, sqlalchemy.exc.TimeoutError, sqlalchemy.exc.DisconnectionError,
                   sqlalchemy.exc.InterfaceError)
# SQLite's messages for a ledger it cannot use now: a write lock held past the busy timeout, a full or failing disk
SQLITE_UNAVAILABLE = ("database is locked", "database table is locked", "disk I/O error", "database or disk is full",
                      "unable to open database file")
DEPENDENCY_NAMES = {"redis": "Redis (the serving cache, rate windows and queues)", "ledger": "the SQL ledger"}


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

    def within(self, *location) -> ValidationFailed:
        """The same errors placed where the caller sent the value (`query`, MCP's `arguments`, a batch item)."""
        return ValidationFailed([{**error, "loc": [*location, *error["loc"]]} for error in self.detail])


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


def failed_dependency(ex: BaseException | None) -> str | None:
    """"redis" or "ledger" when `ex`, or an exception it was raised from or during (a group's too), is that
    dependency failing; else None."""
    seen = 0
    while ex is not None and seen < 10:
        if isinstance(ex, REDIS_FAILURES):
            return "redis"
        if isinstance(ex, LEDGER_FAILURES) and _ledger_unavailable(ex):
            return "ledger"
        if isinstance(ex, BaseExceptionGroup):
            return next(filter(None, map(failed_dependency, ex.exceptions)), None)
        ex, seen = ex.__cause__ or ex.__context__, seen + 1
    return None


def dependency_error(dependency: str, request_id: str | None, retry_after_s: int) -> APIError:
    """The 503 a client gets when a part the service depends on is down: which part, and when to try again."""
    return APIError(503, "dependency_unavailable", f"{DEPENDENCY_NAMES[dependency]} did not answer in time; try "
                    f"again in {retry_after_s} s. Nothing was charged.", headers={"Retry-After": str(retry_after_s)},
                    dependency=dependency, retry_after_seconds=retry_after_s, request_id=request_id)


def dependency_unavailable(resp, dependency: str, request_id: str | None, retry_after_s: int) -> None:
    error = dependency_error(dependency, request_id, retry_after_s)
    resp.status = error.status
    resp.set_header("Retry-After", str(retry_after_s))
    resp.media = error.body()


def _ledger_unavailable(ex: sqlalchemy.exc.SQLAlchemyError) -> bool:
    """The ledger's server or file not answering, as opposed to a fault of the code or the schema: SQLite raises
    OperationalError for a missing table too, which is a bug to report (500), not a part to wait for."""
    if not isinstance(ex, sqlalchemy.exc.DBAPIError) or ex.connection_invalidated:
        return True  # the pool's own timeout, a detected disconnect
    if isinstance(ex.orig, sqlite3.Error):
        return any(sign in str(ex.orig) for sign in SQLITE_UNAVAILABLE)
    return True  # a server database: its operational errors are the server or the network (lost, shut down, timed out)


async def handle_dependency_failure(req, resp, ex: Exception, params):
    dependency = failed_dependency(ex)
    if dependency is None:  # an error of a dependency's type that is not the dependency being down
        return await handle_unexpected(req, resp, ex, params)
    log.warning("%s unavailable on %s %s (request %s): %s: %s", dependency, req.method, req.path,
                req.context.request_id, type(ex).__name__, ex)
    dependency_unavailable(resp, dependency, req.context.request_id, get_settings().dependency_retry_after_s)


async def handle_unexpected(req, resp, ex: Exception, params):
    """Never a stack trace to the client; the log keeps it with the request id. A dependency failure the code
    wrapped in an error of its own still answers as one."""
    if failed_dependency(ex) is not None:
        return await handle_dependency_failure(req, resp, ex, params)
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
    for failure in REDIS_FAILURES + LEDGER_FAILURES:
        app.add_error_handler(failure, handle_dependency_failure)
