"""The first materialization (`marketintel up`): `refresh_job` in this process, recorded in the instance at
`settings.dagster_home` so the run shows in the UI, with progress per finished step."""
from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable

from dagster import AssetCheckSeverity, DagsterEventType, DagsterInstance

from marketintel.settings import Settings
from pipelines.instance import WAREHOUSE_TAGS, ensure_dagster_home

Progress = Callable[[int, int, str], None]
_STEP_DONE = {DagsterEventType.STEP_SUCCESS, DagsterEventType.STEP_FAILURE, DagsterEventType.STEP_SKIPPED}


def materialize_all(settings: Settings, on_progress: Progress | None = None, log_level: str = "WARNING",
                    poll_s: float = 0.2) -> dict:
    """Run `refresh_job` to completion. The run executes in a worker thread while this thread follows its
    event log and calls `on_progress(done, total, step)` once per finished step. Returns a summary:
    run_id, success, steps, steps_done, failed_steps, module_errors (modules that raised), module_warnings
    (modules short of data), seconds. `log_level` is the console logger's (the run's full event log is in
    the instance either way); the default keeps a caller's progress bar readable."""
    from pipelines.definitions import build_defs  # imports every module: keep `marketintel --help` fast

    home = ensure_dagster_home(settings)
    defs = build_defs(settings)
    job = defs.resolve_job_def("refresh_job")
    total = len(job.graph.node_defs)
    run_id = str(uuid.uuid4())
    started = time.monotonic()
    outcome: dict = {}

    with DagsterInstance.from_config(str(home)) as instance:
        def run() -> None:
            try:
                result = job.execute_in_process(
                    run_config={"loggers": {"console": {"config": {"log_level": log_level}}}},
                    instance=instance, run_id=run_id, tags=WAREHOUSE_TAGS, raise_on_error=False)
                outcome["result"] = result
            except BaseException as exc:  # surfaced to the caller below
                outcome["error"] = exc

        worker = threading.Thread(target=run, name="materialize-all", daemon=True)
        worker.start()
        seen: set[str] = set()
        cursor: str | None = None
        while True:
            alive = worker.is_alive()  # read before polling so the last events are never missed
            page = instance.get_records_for_run(run_id, cursor=cursor, of_type=_STEP_DONE)
            cursor = page.cursor if page.records else cursor
            for record in page.records:
                step = record.event_log_entry.step_key
                if step and step not in seen:
                    seen.add(step)
                    if on_progress:
                        on_progress(len(seen), total, step)
            if not alive and not page.has_more:
                break
            if page.has_more:
                continue
            worker.join(poll_s)

        if "error" in outcome:
            raise outcome["error"]
        result = outcome["result"]
        failed = sorted(
            r.event_log_entry.step_key
            for r in instance.get_records_for_run(run_id, of_type=DagsterEventType.STEP_FAILURE).records
        )
        failed_checks = [e for e in result.get_asset_check_evaluations() if not e.passed]
        errors = sorted(e.asset_key.to_user_string() for e in failed_checks if e.severity == AssetCheckSeverity.ERROR)
        warnings = sorted(e.asset_key.to_user_string() for e in failed_checks if e.severity != AssetCheckSeverity.ERROR)
    return {"run_id": run_id, "success": result.success, "steps": total, "steps_done": len(seen),
            "failed_steps": failed,
            "module_errors": errors, "module_warnings": warnings,
            "seconds": round(time.monotonic() - started, 2)}


def backfill_history(settings: Settings, start: str, end: str) -> dict:
    """Materialize `module_history` over the days start..end (ISO dates) as one run, as a single-run backfill from
    the Dagster UI does, recorded in the instance so it shows there. Returns the run's metadata and seconds."""
    from pipelines.definitions import build_defs
    from pipelines.instance import HISTORY_TAGS

    home = ensure_dagster_home(settings)
    job = build_defs(settings).resolve_job_def("history_job")
    started = time.monotonic()
    with DagsterInstance.from_config(str(home)) as instance:
        result = job.execute_in_process(instance=instance, raise_on_error=False, tags={
            **HISTORY_TAGS, "dagster/asset_partition_range_start": start, "dagster/asset_partition_range_end": end})
    events = result.get_asset_materialization_events()
    metadata = {k: v.value for k, v in events[-1].materialization.metadata.items()} if events else {}
    return {"run_id": result.run_id, "success": result.success, **metadata,
            "seconds": round(time.monotonic() - started, 1)}
