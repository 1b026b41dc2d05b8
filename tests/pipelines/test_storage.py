"""The instance's storage (pipelines/storage.py): Dagster's SQLite files and layout, written through engines kept
per file (a bounded number of them), readable by Dagster's own SQLite storage."""
from __future__ import annotations

from dagster import DagsterInstance, job, op
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage

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
