"""Dagster resources over the warehouse, the serving cache and the market (provider + clock).

`pipelines/definitions.py` builds them from `Settings`; their fields show in the Dagster UI."""
from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
from dagster import ConfigurableResource, InitResourceContext
from pydantic import PrivateAttr

from marketintel.settings import Settings
from warehouse.duckdb_store import Warehouse

log = logging.getLogger(__name__)


class WarehouseResource(ConfigurableResource):
    """The DuckDB warehouse file, opened by a run's first step that reads it and closed when the run ends.

    Every job runs its steps one after another in one process (the in-process executor), so one connection
    serves them all. Opening DuckDB costs about 15 ms of CPU even for an in-memory database (the engine starts
    anew), and closing checkpoints: per step, that was an eighth of a refresh run. Runs that write the warehouse
    are serialized by their tag (`WAREHOUSE_TAGS`); another process that opens the file during a run (an operator's
    `marketintel materialize`, a back-test) waits for the run, up to `Warehouse`'s lock timeout."""

    path: str
    analyst_path: str

    _store: Warehouse | None = PrivateAttr(default=None)

    @contextmanager
    def open(self) -> Iterator[Warehouse]:
        """The warehouse for one step. A write that fails (a full disk: DuckDB's IOException, or an OSError from
        the analyst copy) fails the step as before, and is also noted where /health/dashboard shows it, so the
        operator sees why the served data stopped moving. The connection is dropped with it, so the next step
        starts on the file as it was last committed. DuckDB commits through its WAL: the file keeps its last
        committed state, and the API keeps serving the last published copies."""
        try:
            if self._store is None:
                self._store = Warehouse(Path(self.path))
            yield self._store
        except (duckdb.Error, OSError) as exc:
            self._close()
            _note_warehouse_error(self.path, exc)
            raise

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        self._close()

    def _close(self) -> None:
        store, self._store = self._store, None
        if store is not None:
            try:
                store.close()
            except duckdb.Error:  # a connection a failed write left unusable: the run's error says why
                log.warning("could not close the warehouse", exc_info=True)


class ServingCacheResource(ConfigurableResource):
    redis_url: str
    prefix: str = "mi"

    def cache(self):
        from warehouse.cache import ServingCache  # imports intel.formats; only the publish step needs it

        return ServingCache.from_url(self.redis_url, self.prefix)


class MarketResource(ConfigurableResource):
    """The data provider and the market clock, as `intel.providers.factory` makes them from Settings.

    The fields are the settings that decide what data a run sees; anything else comes from the MI_*
    environment. `now` is read once per run so every asset of a run agrees on the market date."""

    source: str
    replay_dir: str
    replay_start: str | None = None  # ISO date
    clock_speed: float = 1.0
    clock_anchor: float | None = None
    sim_seed: int = 7
    sim_years: int = 16

    _provider: object = PrivateAttr(default=None)
    _now: datetime | None = PrivateAttr(default=None)
    _settings: Settings | None = PrivateAttr(default=None)

    @classmethod
    def from_settings(cls, settings: Settings) -> MarketResource:
        return cls(
            source=settings.source,
            replay_dir=str(settings.replay_dir.resolve()),
            replay_start=settings.replay_start.isoformat() if settings.replay_start else None,
            clock_speed=settings.clock_speed,
            clock_anchor=settings.clock_anchor,
            sim_seed=settings.sim_seed,
            sim_years=settings.sim_years,
        )

    def settings(self) -> Settings:
        """The run's settings: made once (a Settings reads the whole MI_* environment; made per module step, it was a
        tenth of a refresh run)."""
        if self._settings is None:
            overrides = self.model_dump(exclude={"replay_start"}) | {
                "replay_start": date.fromisoformat(self.replay_start) if self.replay_start else None
            }
            self._settings = Settings(**overrides)
        return self._settings

    def setup_for_execution(self, context: InitResourceContext) -> None:
        from intel.providers.factory import make_clock, make_provider

        self._settings = None  # each run reads the environment afresh
        settings = self.settings()
        self._provider = make_provider(settings)
        self._now = make_clock(settings, self._provider).now()

    def status_client(self):
        """Redis for the operational status keys (`warehouse.status`): the same server the serving cache
        uses (MI_REDIS_URL or the embedded one), so ingest needs no extra resource."""
        import redis

        return redis.Redis.from_url(self.settings().effective_redis_url, socket_connect_timeout=2, socket_timeout=5)

    @property
    def provider(self):
        return self._provider

    @property
    def now(self) -> datetime:
        return self._now

    @property
    def today(self) -> date:
        return self._now.date()


class RecordsResource(ConfigurableResource):
    """The SQL store of the records that must be believed (warehouse/ledger/records.py) and the service's
    signing key under MI_HOME (marketintel/signing.py): what the predictions assets append and sign with."""

    database_url: str
    home: str

    @classmethod
    def from_settings(cls, settings: Settings) -> RecordsResource:
        return cls(database_url=settings.sqlalchemy_url, home=str(settings.home.resolve()))

    def records(self):
        from warehouse.ledger.db import make_engine
        from warehouse.ledger.records import Records

        _migrated(self.database_url)  # a home materialized before its first `migrate` still gets the tables
        return Records(make_engine(self.database_url))

    def key(self):
        from marketintel.signing import load_or_create

        return load_or_create(Path(self.home))


def _note_warehouse_error(path: str, exc: BaseException) -> None:
    import redis

    from warehouse.status import note_warehouse_error

    client = redis.Redis.from_url(Settings().effective_redis_url, socket_connect_timeout=2, socket_timeout=5)
    try:
        note_warehouse_error(client, path, f"{type(exc).__name__}: {exc}", datetime.now(UTC).isoformat())
    except redis.RedisError:  # the status is rebuildable; the step's own failure is what matters
        log.warning("could not note the warehouse error", exc_info=True)
    finally:
        client.close()


@functools.cache
def _migrated(database_url: str) -> None:
    from warehouse.ledger.db import migrate

    migrate(database_url)


class HistoryResource(ConfigurableResource):
    """The module history's file, its published copy (warehouse/history_store.py) and how many processes a run of
    many days uses."""

    path: str
    copy_path: str
    workers: int = 2

    @classmethod
    def from_settings(cls, settings: Settings) -> HistoryResource:
        return cls(path=str(settings.history_path.resolve()), copy_path=str(settings.history_copy_path.resolve()),
                   workers=settings.history_workers)
