"""The Definitions load, cover the registry, wire the in-process executor, and pass `dagster definitions validate`."""
from __future__ import annotations

import os
import subprocess
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest
import yaml
from dagster import AssetKey, DagsterInstance, DagsterRun, DagsterRunStatus, build_schedule_context
from dagster._core.utils import make_new_run_id

from assets.history import SETTLE
from intel.registry import modules
from marketintel.settings import Settings
from pipelines.definitions import build_defs, refresh_cron
from pipelines.instance import HISTORY_TAG, WAREHOUSE_TAG, ensure_dagster_home

ROOT = Path(__file__).resolve().parents[2]


def test_one_asset_per_non_ticker_module_grouped_by_category(mi_home):
    defs = build_defs(Settings())
    graph = defs.resolve_asset_graph()
    keys = {key.to_user_string() for key in graph.get_all_asset_keys()}
    registered = modules()
    expected = {m.name for m in registered.values() if not m.takes_ticker}
    foresight = {"regime", "parallels", "predictions", "prediction_resolutions"}
    derived = {"observations", "pulse", "publish", "scanner", "chart_series", "trading_signals", "daytrade_journal",
               "module_history"}
    assert keys == expected | derived | foresight
    assert graph.get(AssetKey("module_history")).parent_keys == {AssetKey("publish")}  # it reads the analyst copy
    for name in foresight:
        assert graph.get(AssetKey(name)).group_name == "foresight"
    assert graph.get(AssetKey("chart_series")).group_name == "content"
    assert graph.get(AssetKey("trading_signals")).group_name == "trading"
    assert graph.get(AssetKey("daytrade_journal")).group_name == "trading"
    for name in expected:
        assert graph.get(AssetKey(name)).group_name == registered[name].category
        assert AssetKey("observations") in graph.get(AssetKey(name)).parent_keys
    assert not keys & {m.name for m in registered.values() if m.takes_ticker}
    published = {AssetKey(n) for n in expected | foresight | {"pulse", "chart_series", "trading_signals"}}
    assert graph.get(AssetKey("publish")).parent_keys == published
    assert graph.get(AssetKey("scanner")).parent_keys == {AssetKey("publish")}
    assert graph.get(AssetKey("scanner")).group_name == "events"


def test_jobs_run_in_process_and_are_serialized(mi_home):
    defs = build_defs(Settings(refresh_minutes=5))
    steps = {}
    for name in ("ingest_job", "modules_job", "refresh_job"):
        job = defs.resolve_job_def(name)
        assert job.executor_def.name == "in_process"
        assert job.tags[WAREHOUSE_TAG] == "writer"
        steps[name] = {n.name for n in job.graph.node_defs}
    assert steps["ingest_job"] == {"observations"}
    assert steps["refresh_job"] == steps["modules_job"] | {"observations"}
    assert "publish" in steps["modules_job"] and "pulse" in steps["modules_job"]
    schedule = defs.resolve_schedule_def("refresh_schedule")
    assert schedule.cron_schedule == "*/5 * * * *" and schedule.job_name == "refresh_job"
    assert refresh_cron(120) == "0 */2 * * *"
    history = defs.resolve_job_def("history_job")  # its own file and queue: a backfill never holds a refresh back
    assert {n.name for n in history.graph.node_defs} == {"module_history"} and "module_history" not in steps[
        "refresh_job"]
    assert history.tags == {HISTORY_TAG: "writer"} and history.executor_def.name == "in_process"


def test_resources_come_from_settings(mi_home, monkeypatch):
    monkeypatch.setenv("MI_REDIS_URL", "redis://127.0.0.1:1/3")
    settings = Settings(source="replay", replay_dir=Path("/data/history"), sim_years=3)
    resources = build_defs(settings).resources
    assert resources["warehouse"].path == str(settings.warehouse_path.resolve())
    assert resources["warehouse"].analyst_path == str(settings.analyst_path.resolve())
    assert resources["serving"].redis_url == "redis://127.0.0.1:1/3"
    market = resources["market"]
    assert (market.source, market.replay_dir, market.sim_years) == ("replay", "/data/history", 3)
    assert market.settings().source == "replay" and market.settings().home == settings.home


def test_dagster_home_limits_warehouse_runs_to_one(mi_home):
    home = ensure_dagster_home(Settings())
    config = yaml.safe_load((home / "dagster.yaml").read_text())
    assert config["concurrency"]["runs"]["tag_concurrency_limits"] == [{"key": WAREHOUSE_TAG, "limit": 1},
                                                                       {"key": HISTORY_TAG, "limit": 1}]
    assert config["run_coordinator"]["class"] == "QueuedRunCoordinator"
    assert config["telemetry"] == {"enabled": False} and config["nux"] == {"enabled": False}  # no first-run dialogs
    with DagsterInstance.from_config(str(home)) as instance:  # the file is a valid instance config
        assert instance.run_coordinator.__class__.__name__ == "QueuedRunCoordinator"
        assert Path(instance.root_directory) == home
    before = (home / "dagster.yaml").stat().st_mtime_ns
    assert ensure_dagster_home(Settings()) == home and (home / "dagster.yaml").stat().st_mtime_ns == before
    opted_in = yaml.safe_load((ensure_dagster_home(Settings(dagster_telemetry=True)) / "dagster.yaml").read_text())
    assert opted_in["telemetry"] == {"enabled": True}  # the operator's choice, never ours


def test_the_operators_instance_settings_are_added_never_overriding(mi_home, tmp_path):
    extra = tmp_path / "launcher.yaml"
    extra.write_text("run_launcher:\n  module: dagster._core.launcher\n  class: DefaultRunLauncher\n"
                     "run_retries:\n  enabled: true\n  max_retries: 1\n")
    home = ensure_dagster_home(Settings(dagster_instance_extra=extra))
    with DagsterInstance.from_config(str(home)) as instance:
        assert instance.run_retries_enabled and instance.run_retries_max_retries == 1
        assert instance.run_coordinator.__class__.__name__ == "QueuedRunCoordinator"  # ours stays
    extra.write_text("run_coordinator:\n  module: dagster._core.run_coordinator\n  class: DefaultRunCoordinator\n")
    with pytest.raises(ValueError, match="repeats run_coordinator"):
        ensure_dagster_home(Settings(dagster_instance_extra=extra))
    extra.write_text("- just a list\n")
    with pytest.raises(ValueError, match="must be a YAML mapping"):
        ensure_dagster_home(Settings(dagster_instance_extra=extra))


def test_dagster_cli_validates_the_workspace(tmp_path, mi_home):
    home = ensure_dagster_home(Settings())
    env = {**os.environ, "DAGSTER_HOME": str(home)}
    proc = subprocess.run([str(ROOT / ".venv" / "bin" / "dagster"), "definitions", "validate", "-w", "workspace.yaml"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_refresh_schedule_skips_while_a_refresh_is_pending(mi_home):
    settings = Settings()
    schedule = build_defs(settings).resolve_schedule_def("refresh_schedule")
    with DagsterInstance.from_config(str(ensure_dagster_home(settings))) as instance:
        first = schedule.evaluate_tick(build_schedule_context(instance=instance))
        assert [type(r).__name__ for r in first.run_requests] == ["RunRequest"]
        instance.add_run(DagsterRun(job_name="refresh_job", run_id=make_new_run_id(), status=DagsterRunStatus.STARTED))
        second = schedule.evaluate_tick(build_schedule_context(instance=instance))
        assert not second.run_requests and "pending" in second.skip_message


def test_history_schedule_asks_once_for_the_latest_settled_market_day(mi_home):
    defs = build_defs(Settings())
    schedule = defs.resolve_schedule_def("history_schedule")
    with DagsterInstance.ephemeral() as instance:  # the repository: a partition key is checked against the asset's
        context = build_schedule_context(instance=instance, repository_def=defs.get_repository_def())
        request = schedule.evaluate_tick(context).run_requests[0]
    day, now = date.fromisoformat(request.partition_key), datetime.now(UTC)  # the sim clock is the wall clock
    assert day.weekday() < 5 and now - timedelta(days=4) < datetime.combine(day, time(0), UTC) <= now - SETTLE
    assert request.run_key == f"history-{day}"  # a day's run key: the hourly ticks after the first ask nothing
