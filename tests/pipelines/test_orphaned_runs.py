"""Runs a dead pipelines role left in progress are ended on its next start (pipelines/orphaned_runs.py): those its
run launcher started, never a run executing in a process of its own. tests/deploy/test_cluster.py kills the daemon
of a running cluster mid-run and sees the next run go through."""
from __future__ import annotations

from dagster import DagsterInstance, DagsterRun, DagsterRunStatus
from dagster._core.storage.tags import GRPC_INFO_TAG
from dagster._core.utils import make_new_run_id

from marketintel.settings import Settings
from pipelines.instance import ensure_dagster_home
from pipelines.orphaned_runs import WHY, release_orphaned_runs

LAUNCHED = {GRPC_INFO_TAG: '{"host": "localhost", "port": 4000}'}


def test_launched_runs_left_in_progress_are_ended_and_the_rest_left_alone(mi_home, monkeypatch):
    home = ensure_dagster_home(Settings())
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    runs = {"started": (DagsterRunStatus.STARTED, LAUNCHED), "starting": (DagsterRunStatus.STARTING, LAUNCHED),
            "canceling": (DagsterRunStatus.CANCELING, LAUNCHED),
            "not-started": (DagsterRunStatus.NOT_STARTED, LAUNCHED), "done": (DagsterRunStatus.SUCCESS, LAUNCHED),
            "in-process": (DagsterRunStatus.STARTED, {})}
    ids = {}
    with DagsterInstance.from_config(str(home)) as instance:
        for name, (status, tags) in runs.items():
            ids[name] = make_new_run_id()
            instance.add_run(DagsterRun(job_name="refresh_job", run_id=ids[name], status=status, tags=tags))

    assert sorted(release_orphaned_runs()) == sorted(ids[n] for n in ("started", "starting", "canceling"))

    with DagsterInstance.from_config(str(home)) as instance:
        status = {name: instance.get_run_by_id(run_id).status for name, run_id in ids.items()}
        assert status == {"started": DagsterRunStatus.FAILURE, "starting": DagsterRunStatus.FAILURE,
                          "canceling": DagsterRunStatus.CANCELED, "not-started": DagsterRunStatus.NOT_STARTED,
                          "done": DagsterRunStatus.SUCCESS, "in-process": DagsterRunStatus.STARTED}
        said = [e.message for e in instance.all_logs(ids["started"])]
        assert any(WHY in (m or "") for m in said), said
    assert release_orphaned_runs() == []  # nothing left the second time
