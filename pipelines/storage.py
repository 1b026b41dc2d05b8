"""Dagster's SQLite storage, with one SQLAlchemy engine per event-log file kept for the process.

Dagster's SQLite event log builds a new engine for every statement it runs. A new engine initializes its dialect
on its first connection and starts with an empty cache of compiled statements, so each of a run's events (about
fifteen per step, over eighty steps a refresh) paid for both again: a third of a 3-year sim refresh run's time
(15.1 s, 9.8 s with the engines kept; `pipelines/instance.py` points dagster.yaml here).

A run's own file keeps Dagster's NullPool: a connection is opened and closed for each use, and closing the last
connection to a WAL database checkpoints it into the `.db` file, the file Dagster's watcher (the UI's live view of
a running run) watches for changes. The index file, which every asset event is copied into and every step reads
its inputs' versions from, is watched by nobody: its engine keeps its connection open, so an event costs a commit
rather than an open, a checkpoint and a close (0.97 -> 0.23 ms a write in isolation; a 3-year sim refresh run
9.0 -> 7.3 s). Other processes (the daemon, the webserver) read and write it as before: WAL lets readers and a
writer share it, and a kept connection holds no lock between uses. The files and their layout are Dagster's own
(`storage: sqlite`), so a home made before this reads the same."""
from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from dagster._core.storage.event_log.sqlite import sqlite_event_log
from dagster._core.storage.event_log.sqlite.sqlite_event_log import INDEX_SHARD_NAME
from dagster._core.storage.sql import create_engine
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage, _event_logs_directory
from sqlalchemy import Connection, event
from sqlalchemy.pool import NullPool, QueuePool

KEPT_ENGINES = 8  # the index file's and the latest runs' (a daemon sees every run over its life)
# Pages a kept connection's WAL holds before it is checkpointed into the file (SQLite's default: 1000, 4 MB). The
# WAL file is reused, not shrunk, so this bounds the disk it takes beside the index: on a nearly full disk, a run
# fails at the warehouse write that does not fit (tests/faults), not in Dagster's own log.
WAL_PAGES = 64


def _small_wal(dbapi_connection, _record) -> None:
    dbapi_connection.execute(f"pragma wal_autocheckpoint={WAL_PAGES}")


class KeptEngineEventLogStorage(sqlite_event_log.SqliteEventLogStorage):
    def __init__(self, base_dir: str, inst_data=None):
        self._engines: OrderedDict[str, object] = OrderedDict()  # before the parent's set-up, which connects
        self._pid = os.getpid()
        super().__init__(base_dir, inst_data)

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        """As Dagster's, on the file's kept engine rather than a new one."""
        with self._db_lock:
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def _engine(self, shard: str):
        if self._pid != os.getpid():  # a forked child: its parent's pooled connections are not its own
            for engine in self._engines.values():
                engine.dispose(close=False)
            self._engines.clear()
            self._pid = os.getpid()
        engine = self._engines.pop(shard, None) or self._new_engine(shard)
        self._engines[shard] = engine  # the most recently used last
        while len(self._engines) > KEPT_ENGINES:
            self._engines.popitem(last=False)[1].dispose()
        return engine

    def _new_engine(self, shard: str):
        kept = shard == INDEX_SHARD_NAME
        engine = create_engine(self.conn_string_for_shard(shard), poolclass=QueuePool if kept else NullPool,
                               connect_args={"timeout": sqlite_event_log.SQLITE_BUSY_TIMEOUT_SECONDS})
        if kept:
            event.listen(engine, "connect", _small_wal)
        return engine

    def _close_engines(self) -> None:
        with self._db_lock:
            while self._engines:
                self._engines.popitem()[1].dispose()

    def wipe(self) -> None:
        self._close_engines()  # before Dagster deletes the files
        super().wipe()

    def dispose(self) -> None:
        super().dispose()
        self._close_engines()


class SqliteStorage(DagsterSqliteStorage):
    """`storage: sqlite` with the event log above; dagster.yaml names it as a custom storage."""

    def __init__(self, base_dir: str, inst_data=None):
        super().__init__(base_dir, inst_data)
        self._event_log_storage = KeptEngineEventLogStorage(_event_logs_directory(base_dir))

    @classmethod
    def from_config_value(cls, inst_data, config_value) -> SqliteStorage:
        return cls.from_local(inst_data=inst_data, **config_value)
