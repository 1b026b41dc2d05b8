"""Short ledger transactions for a coroutine, without a thread: on SQLite on the event loop's thread, on
PostgreSQL through SQLAlchemy's asyncio engine (see LoopWriter)."""
from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import Engine, event
from sqlalchemy.exc import DisconnectionError, OperationalError

from .db import SQLITE_BUSY_TIMEOUT_S, psycopg_url, reading, sqlite_engine, timeouts_of

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
        if not self.sqlite:
            # imported here, at start-up, not on a loop's first debit: the import (about 60 ms) would block it
            from sqlalchemy.ext.asyncio import create_async_engine
            self._create_async_engine = create_async_engine

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
            self._nowait = sqlite_engine(self.engine.url.render_as_string(hide_password=False), busy_timeout_s=0)
        return self._nowait

    def _async_engines(self):
        loop = asyncio.get_running_loop()
        if self._async is None or self._async[0] is not loop:
            if self._async is not None:  # opened on a loop that has ended: let their connections go
                for engine in self._async[1:]:
                    engine.sync_engine.dispose(close=False)
            url = psycopg_url(self.engine.url)
            pool = timeouts_of(self.engine).pool_options(*_ASYNC_POOL_SIZE)  # the main engine's timeouts
            engines = (self._create_async_engine(url, **pool),
                       self._create_async_engine(url, isolation_level="AUTOCOMMIT", **pool))
            for engine in engines:
                _ping_when_idle(engine.sync_engine)
            self._async = (loop, *engines)
        return self._async[1:]


_ASYNC_POOL_SIZE = (5, 10)  # pool size and overflow of each asyncio engine: debits and refunds, one at a time each
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
