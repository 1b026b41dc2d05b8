"""Engines for the ledger and the programmatic Alembic upgrade.

SQLite is the single-machine default, so several processes (gunicorn workers, RQ workers, the CLI) write
one file: every transaction starts with BEGIN IMMEDIATE, which takes the write lock up front and makes
writers queue on the busy timeout instead of failing half-way with "database is locked".
"""
from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, make_url, text
from sqlalchemy.exc import DisconnectionError, OperationalError

from warehouse.sqlite_wal import enable_wal

_READ_ONLY = "ledger_read_only"
MIGRATIONS_DIR = Path(__file__).resolve().parents[1] / "migrations"
SQLITE_BUSY_TIMEOUT_S = 10
# Any fixed 64-bit number: PostgreSQL sessions running `migrate` at once queue on it.
_MIGRATION_LOCK_ID = int.from_bytes(hashlib.sha256(b"marketintel-ledger-migrate").digest()[:7], "big")


def make_engine(url: str) -> Engine:
    """An engine configured for concurrent use: WAL + BEGIN IMMEDIATE on SQLite, a pinged pool on PostgreSQL."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    return create_engine(_psycopg(parsed), **_PG_POOL)


_PG_POOL = {"pool_pre_ping": True, "pool_size": 10, "max_overflow": 20, "pool_recycle": 1800}


def _psycopg(parsed):
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        return parsed.set(drivername="postgresql+psycopg")  # plain postgresql:// means psycopg 3 here
    return parsed


def _sqlite_engine(url: str, busy_timeout_s: float = SQLITE_BUSY_TIMEOUT_S) -> Engine:
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


T = TypeVar("T")
# How a coroutine waits for another writer's SQLite lock: the first retries at the next turns of the event
# loop (a debit holds the lock for well under a millisecond), then every millisecond.
_SQLITE_RETRY_DELAYS_S = (0, 0, 0, 0.001)


class LoopWriter:
    """Short ledger transactions for a coroutine, run without a thread.

    Handing each one to a thread cost more than the transaction: on SQLite the thread held the database's
    write lock while it waited for the GIL (up to the 5 ms switch interval, once per statement, with the
    event loop holding it), and the other worker processes waited for that lock in SQLite's busy handler,
    which sleeps 1, 2, 5, 10 ... 100 ms between tries. Here:

    - SQLite: the transaction (`fn`, given a Connection) runs on the event loop's own thread, begin to
      commit with no await in between, so the write lock is held only for the statements themselves. Its
      connections have no busy timeout: while another writer holds the lock, BEGIN IMMEDIATE fails at once
      and the coroutine retries at the next turns of the loop, then every millisecond (never blocking the
      loop), up to the same SQLITE_BUSY_TIMEOUT_S as the other writers wait.
    - PostgreSQL: the same `fn` runs through SQLAlchemy's asyncio engine on psycopg's async connection
      (`AsyncConnection.run_sync`: greenlets, no thread), so the loop serves other requests during each round
      trip. Connections belong to the event loop that opened them; a coroutine on another loop (a test's
      `asyncio.run`, an RQ job) gets engines of its own. `autocommit` has an engine of its own whose
      connections stay in autocommit, so none is switched on checkout and back on checkin. These engines do
      not ping every connection they hand out (a round trip per debit: `pool_pre_ping` on the main engine)
      but only one that sat unused for PING_AFTER_IDLE_S (see `_ping_when_idle`).

    `fn` is the very function the synchronous callers run inside `engine.begin()`, so each transaction is
    written once. On SQLite a transaction that met the lock is run again from the start after its rollback,
    so `fn` must do nothing but SQL."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        self._nowait: Engine | None = None
        self._async = None  # (loop, AsyncEngine for transactions, AsyncEngine in autocommit) on PostgreSQL

    async def write(self, fn: Callable[..., T], *args) -> T:
        """`fn(conn, *args)` in a write transaction (BEGIN IMMEDIATE on SQLite), committed when it returns."""
        if self.sqlite:
            return await self._sqlite(self._nowait_engine().begin, fn, args)
        async with self._async_engines()[0].begin() as conn:
            return await conn.run_sync(fn, *args)

    async def autocommit(self, fn: Callable[..., T], *args) -> T:
        """`fn(conn, *args)` with each statement its own transaction (PostgreSQL; on SQLite, as `write`)."""
        if self.sqlite:
            return await self.write(fn, *args)
        async with self._async_engines()[1].connect() as conn:
            return await conn.run_sync(fn, *args)

    async def read(self, fn: Callable[..., T], *args) -> T:
        """`fn(conn, *args)` in a read-only transaction (see `reading`)."""
        if self.sqlite:
            return await self._sqlite(lambda: reading(self._nowait_engine()), fn, args)
        async with self._async_engines()[0].connect() as conn, conn.begin():
            return await conn.run_sync(fn, *args)

    async def aclose(self) -> None:
        if self._nowait is not None:
            self._nowait.dispose()
        if self._async is not None:
            for engine in self._async[1:]:
                await engine.dispose()

    async def _sqlite(self, transaction, fn, args):
        deadline, tries = None, 0
        while True:
            try:
                with transaction() as conn:
                    return fn(conn, *args)
            except OperationalError as exc:
                if getattr(exc.orig, "sqlite_errorcode", None) not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                    raise
                now = time.monotonic()
                deadline = deadline or now + SQLITE_BUSY_TIMEOUT_S
                if now > deadline:
                    raise
            await asyncio.sleep(_SQLITE_RETRY_DELAYS_S[min(tries, len(_SQLITE_RETRY_DELAYS_S) - 1)])
            tries += 1

    def _nowait_engine(self) -> Engine:
        if self._nowait is None:
            self._nowait = _sqlite_engine(self.engine.url.render_as_string(hide_password=False), busy_timeout_s=0)
        return self._nowait

    def _async_engines(self):
        loop = asyncio.get_running_loop()
        if self._async is None or self._async[0] is not loop:
            from sqlalchemy.ext.asyncio import create_async_engine

            if self._async is not None:  # opened on a loop that has ended: let their connections go
                for engine in self._async[1:]:
                    engine.sync_engine.dispose(close=False)
            url = _psycopg(self.engine.url)
            engines = (create_async_engine(url, **_ASYNC_POOL),
                       create_async_engine(url, isolation_level="AUTOCOMMIT", **_ASYNC_POOL))
            for engine in engines:
                _ping_when_idle(engine.sync_engine)
            self._async = (loop, *engines)
        return self._async[1:]


_ASYNC_POOL = {"pool_size": 5, "max_overflow": 10, "pool_recycle": 1800}
PING_AFTER_IDLE_S = 5.0


def _ping_when_idle(engine: Engine) -> None:
    """Ping a connection on checkout only when it sat in the pool longer than PING_AFTER_IDLE_S: that is
    where a restarted server or a dropped link leaves dead connections, which are then replaced before use
    (as `pool_pre_ping` does for every checkout). A connection in steady use is not pinged; should its server
    go away meanwhile, its statement fails, SQLAlchemy invalidates the pool, and that request fails whole
    (a failed debit charged nothing)."""
    @event.listens_for(engine, "checkin")
    def _checked_in(_dbapi_connection, record):
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_connection, record, _proxy):
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < PING_AFTER_IDLE_S:
            return  # just connected, or in steady use
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:
            raise DisconnectionError("the connection did not answer a ping") from exc


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
