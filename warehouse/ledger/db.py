"""Engines for the ledger and the programmatic Alembic upgrade.

SQLite is the single-machine default, so several processes (gunicorn workers, RQ workers, the CLI) write
one file: every transaction starts with BEGIN IMMEDIATE, which takes the write lock up front and makes
writers queue on the busy timeout instead of failing half-way with "database is locked".
"""
from __future__ import annotations

import hashlib
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, make_url, text

from warehouse.sqlite_wal import enable_wal

_READ_ONLY = "ledger_read_only"
MIGRATIONS_DIR = Path(__file__).resolve().parents[1] / "migrations"
SQLITE_BUSY_TIMEOUT_S = 10
# Any fixed 64-bit number: PostgreSQL sessions running `migrate` at once queue on it.
_MIGRATION_LOCK_ID = int.from_bytes(hashlib.sha256(b"marketintel-ledger-migrate").digest()[:7], "big")


@dataclass(frozen=True)
class SQLTimeouts:
    """Pool sizes and timeouts of a ledger engine (the `db_*` settings; docs/timeouts-and-pools.md)."""
    pool_size: int = 10
    max_overflow: int = 20
    pool_timeout_s: float = 1.0  # SQLAlchemy's own 30 s would hold a request far past its client's patience
    connect_timeout_s: int = 2
    statement_timeout_ms: int = 0  # 0: none (workers, migrations); the API's engine sets one

    @classmethod
    def from_settings(cls, settings) -> SQLTimeouts:
        return cls(settings.db_pool_size, settings.db_max_overflow, settings.db_pool_timeout_s,
                   settings.db_connect_timeout_s)

    @classmethod
    def for_api(cls, settings) -> SQLTimeouts:
        return replace(cls.from_settings(settings), statement_timeout_ms=settings.db_statement_timeout_ms)

    def pool_options(self, pool_size: int | None = None, max_overflow: int | None = None) -> dict:
        """create_engine's pool and connection options on PostgreSQL (psycopg: libpq's connect_timeout, and the
        session's statement_timeout so a statement stuck behind a lock fails rather than holding the request)."""
        connect_args: dict = {"connect_timeout": self.connect_timeout_s}
        if self.statement_timeout_ms:
            connect_args["options"] = f"-c statement_timeout={self.statement_timeout_ms}"
        return {"pool_size": self.pool_size if pool_size is None else pool_size,
                "max_overflow": self.max_overflow if max_overflow is None else max_overflow,
                "pool_timeout": self.pool_timeout_s, "pool_recycle": 1800, "connect_args": connect_args}


_TIMEOUTS = weakref.WeakKeyDictionary()  # engine -> its SQLTimeouts, for the engines derived from it (loop_writer)


def make_engine(url: str, timeouts: SQLTimeouts | None = None) -> Engine:
    """An engine configured for concurrent use: WAL + BEGIN IMMEDIATE on SQLite, a pinged pool on PostgreSQL.
    `timeouts` default to the settings' (without a statement timeout)."""
    if timeouts is None:
        from marketintel.settings import get_settings  # here: warehouse modules load without settings

        timeouts = SQLTimeouts.from_settings(get_settings())
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = sqlite_engine(url)  # a file on this machine: no connect to fail; writers queue on busy_timeout
    else:
        engine = create_engine(psycopg_url(parsed), pool_pre_ping=True, **timeouts.pool_options())
    _TIMEOUTS[engine] = timeouts
    return engine


def timeouts_of(engine: Engine) -> SQLTimeouts:
    """The timeouts `engine` was made with (defaults for an engine made elsewhere)."""
    return _TIMEOUTS.get(engine, SQLTimeouts())


def psycopg_url(parsed):
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        return parsed.set(drivername="postgresql+psycopg")  # plain postgresql:// means psycopg 3 here
    return parsed


def sqlite_engine(url: str, busy_timeout_s: float = SQLITE_BUSY_TIMEOUT_S) -> Engine:
    database = make_url(url).database
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": busy_timeout_s})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        # Take transaction control away from pysqlite so the "begin" hook below decides how to begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        enable_wal(cursor, SQLITE_BUSY_TIMEOUT_S)
        cursor.execute("PRAGMA synchronous = NORMAL")  # durable in WAL mode up to the last checkpoint
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection):
        # Reads (see `reading`) begin deferred: in WAL mode they neither wait for nor block writers.
        deferred = connection.get_execution_options().get(_READ_ONLY, False)
        connection.exec_driver_sql("BEGIN" if deferred else "BEGIN IMMEDIATE")

    return engine


@contextmanager
def reading(engine: Engine) -> Iterator[Connection]:
    """A transaction for reads only. On SQLite it does not take the write lock, so lookups on every
    request (keys, balances) do not queue behind writers. Writes must use `engine.begin()`."""
    with engine.connect() as connection:
        connection.execution_options(**{_READ_ONLY: True})
        with connection.begin():
            yield connection


def ping(engine: Engine) -> float:
    """Round-trip the database once; returns the seconds it took (raises when it is down)."""
    started = time.perf_counter()
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    return time.perf_counter() - started


def alembic_config() -> Config:
    config = Config(str(MIGRATIONS_DIR / "alembic.ini"))
    # Absolute, so it works from any working directory and from an installed package.
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def migrate(url: str) -> None:
    """`alembic upgrade head`, safe to repeat and to run from several processes at once.

    The upgrade runs inside one transaction that first takes a lock (BEGIN IMMEDIATE on SQLite, an
    advisory lock on PostgreSQL), so a second process waits, then finds the schema at head and does nothing.
    """
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _MIGRATION_LOCK_ID})
            config = alembic_config()
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    finally:
        engine.dispose()
