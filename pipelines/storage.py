"""Dagster's SQLite storage, with one SQLAlchemy engine per event-log file kept for the process.

Dagster's SQLite event log builds a new engine for every statement it runs. A new engine initializes its dialect
on its first connection and starts with an empty cache of compiled statements, so each of a run's events (about
fifteen per step, over eighty steps a refresh) paid for both again: a third of a 3-year sim refresh run's time
(15.1 s, 9.8 s with the engines kept; `pipelines/instance.py` points dagster.yaml here). The engines keep
Dagster's NullPool, so a connection is still opened and closed for each use and no file is held open between
uses: other processes (the daemon, the webserver) lock the files as before, and a run's file can be deleted.
The files and their layout are Dagster's own (`storage: sqlite`), so a home made before this reads the same."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from dagster._core.storage.event_log.sqlite import sqlite_event_log
from dagster._core.storage.sql import create_engine
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage, _event_logs_directory
from sqlalchemy import Connection
from sqlalchemy.pool import NullPool

KEPT_ENGINES = 8  # the index file's and the latest runs' (a daemon sees every run over its life)


class KeptEngineEventLogStorage(sqlite_event_log.SqliteEventLogStorage):
    def __init__(self, base_dir: str, inst_data=None):
        self._engines: OrderedDict[str, object] = OrderedDict()  # before the parent's set-up, which connects
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
        engine = self._engines.pop(shard, None) or create_engine(
            self.conn_string_for_shard(shard), poolclass=NullPool,
            connect_args={"timeout": sqlite_event_log.SQLITE_BUSY_TIMEOUT_SECONDS})
        self._engines[shard] = engine  # the most recently used last
        while len(self._engines) > KEPT_ENGINES:
            self._engines.popitem(last=False)[1].dispose()
        return engine


class SqliteStorage(DagsterSqliteStorage):
    """`storage: sqlite` with the event log above; dagster.yaml names it as a custom storage."""

    def __init__(self, base_dir: str, inst_data=None):
        super().__init__(base_dir, inst_data)
        self._event_log_storage = KeptEngineEventLogStorage(_event_logs_directory(base_dir))

    @classmethod
    def from_config_value(cls, inst_data, config_value) -> SqliteStorage:
        return cls.from_local(inst_data=inst_data, **config_value)
