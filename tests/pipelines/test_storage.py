"""The instance's storage (pipelines/storage.py): Dagster's SQLite files and layout, written through engines kept
per file (a bounded number of them), readable by Dagster's own SQLite storage; the index file's connection kept
open, and a running run's events still seen live by another process's watcher (the UI's)."""
from __future__ import annotations

import threading
import time
import uuid

from dagster import DagsterEventType, DagsterInstance, job, op
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage
from sqlalchemy.pool import NullPool

from marketintel.settings import Settings
from pipelines.instance import ensure_dagster_home
from pipelines.storage import KEPT_ENGINES, KeptEngineEventLogStorage


@op
def one() -> int:
    return 1


@job
def tiny():
    one()


def test_runs_are_recorded_in_dagsters_layout_through_a_bounded_set_of_kept_engines(mi_home):
    home = ensure_dagster_home(Settings())
    with DagsterInstance.from_config(str(home)) as instance:
        events = instance.event_log_storage
        assert isinstance(events, KeptEngineEventLogStorage)
        run_ids = [tiny.execute_in_process(instance=instance).run_id for _ in range(KEPT_ENGINES + 2)]
        assert 0 < len(events._engines) <= KEPT_ENGINES  # the index file's and the latest runs'
        kept = dict(events._engines)
        tiny.execute_in_process(instance=instance)
        assert events._engines["index"] is kept["index"]  # made once, used by every run since

    stock = DagsterSqliteStorage.from_local(str(home / "storage"))  # Dagster's own reader of the same files
    try:
        for run_id in run_ids:
            steps = [r.event_log_entry.dagster_event.event_type_value for r in
                     stock.event_log_storage.get_records_for_run(run_id, limit=100).records
                     if r.event_log_entry.is_dagster_event]
            assert "STEP_SUCCESS" in steps and steps[-1] == "PIPELINE_SUCCESS", steps
        assert {r.run_id for r in stock.run_storage.get_runs()} >= set(run_ids)
    finally:
        stock.dispose()


release = threading.Event()


@op
def held() -> int:
    release.wait(60)
    return 1


@job
def holding():
    held()


def test_the_index_keeps_its_connection_and_a_watcher_sees_a_running_runs_events_live(mi_home):
    home = ensure_dagster_home(Settings())
    run_id, seen = str(uuid.uuid4()), []
    release.clear()
    with DagsterInstance.from_config(str(home)) as instance, DagsterInstance.from_config(str(home)) as ui:
        tiny.execute_in_process(instance=instance)  # the run file's folder and the index exist
        def watcher(entry, cursor) -> None:
            seen.append(entry.dagster_event_type)

        ui.event_log_storage.watch(run_id, None, watcher)
        run = threading.Thread(target=holding.execute_in_process, kwargs={"instance": instance, "run_id": run_id})
        run.start()
        try:
            deadline = time.monotonic() + 30
            while DagsterEventType.STEP_START not in seen:  # the step is held: the run is still going
                assert time.monotonic() < deadline and run.is_alive(), seen
                time.sleep(0.05)
        finally:
            release.set()
            run.join(60)
        ui.event_log_storage.end_watch(run_id, watcher)
        index = instance.event_log_storage._engines["index"]
        assert index.pool.checkedin() == 1  # kept open between uses
        assert isinstance(instance.event_log_storage._engines[run_id].pool, NullPool)  # closed after each use
