"""Which dependency an error says is down (api/errors.py), also through the errors the code wraps it in."""
from __future__ import annotations

import redis.exceptions
import sqlalchemy.exc

from api.errors import failed_dependency


def test_a_wrapped_dependency_failure_is_still_named():

    try:
        try:
            raise redis.exceptions.TimeoutError("Timeout reading from socket")
        except redis.exceptions.RedisError as exc:
            raise RuntimeError("the cache could not be read") from exc
    except RuntimeError as wrapped:
        assert failed_dependency(wrapped) == "redis"
    lost = sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly"))
    assert failed_dependency(ExceptionGroup("batch", [ValueError("x"), lost])) == "ledger"
    assert failed_dependency(ValueError("a bug")) is None


def test_a_sqlite_schema_fault_is_a_bug_and_a_lock_wait_is_the_ledger_down():
    import sqlite3

    missing = sqlalchemy.exc.OperationalError("SELECT 1", {}, sqlite3.OperationalError("no such table: agents"))
    locked = sqlalchemy.exc.OperationalError("UPDATE", {}, sqlite3.OperationalError("database is locked"))
    assert failed_dependency(missing) is None  # answered 500 internal_error, and logged
    assert failed_dependency(locked) == "ledger"
