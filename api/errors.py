"""The two error shapes: 422 `{"detail": [...]}` and `{"error": {"code", "message", ...}}` for the rest."""
from __future__ import annotations

import sqlite3

import falcon
import redis.exceptions
import sqlalchemy.exc

from intel.events.types import TIERS

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


def tier_required(message: str, tier: str, needed: str, **extra) -> APIError:
    """403 below the tier something needs: the caller's tier, the lowest that may (`required_tier`), every tier that
    may (`required`) and where to upgrade."""
    return APIError(403, "tier_required", message, tier=tier, required_tier=needed,
                    required=list(TIERS[TIERS.index(needed):]), upgrade="/api/v1/agents/upgrade", **extra)


def invalid(loc: list, msg: str, type_: str = "value_error") -> ValidationFailed:
    return ValidationFailed([{"loc": loc, "msg": msg, "type": type_}])


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


def _ledger_unavailable(ex: sqlalchemy.exc.SQLAlchemyError) -> bool:
    """The ledger's server or file not answering, as opposed to a fault of the code or the schema: SQLite raises
    OperationalError for a missing table too, which is a bug to report (500), not a part to wait for."""
    if not isinstance(ex, sqlalchemy.exc.DBAPIError) or ex.connection_invalidated:
        return True  # the pool's own timeout, a detected disconnect
    if isinstance(ex.orig, sqlite3.Error):
        return any(sign in str(ex.orig) for sign in SQLITE_UNAVAILABLE)
    return True  # a server database: its operational errors are the server or the network (lost, shut down, timed out)
