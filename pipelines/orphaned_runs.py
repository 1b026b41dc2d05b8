"""Runs left "in progress" by a pipelines role that died: failed on the role's next start, so the queue moves on.

With Dagster's default run launcher a run worker is a child of the role's code server, in the daemon's process group:
when the role stops or dies (its daemon killed, the machine restarted), the supervisor ends the group and the run
worker with it. A run worker killed that way never reports its end, so the run stays STARTED in the run storage, and
since it holds the one warehouse-writer slot (pipelines/instance.py's tag limit), every later refresh waits behind it
for ever: the default launcher cannot tell Dagster's run monitoring whether a worker is alive. So on start, before
the daemon, every run still STARTING or STARTED is marked failed and every CANCELING one canceled, each with an event
saying why: no run worker of this deployment can be alive at that moment. Only runs the launcher started (they carry
its `dagster/grpc_info` tag) are touched: a run executing in a process of its own (`marketintel materialize`, a
history backfill from the command line) may well be alive.

With the Docker or Kubernetes run launcher (docs/operations.md) run workers outlive the role; run monitoring checks
their health instead, and this leaves their runs alone."""
from __future__ import annotations

import logging

log = logging.getLogger("marketintel.pipelines")

WHY = ("the pipelines role stopped while this run was in progress: its run worker, a child of the role, ended with "
       "it. Marked on the role's next start, so the warehouse-writer slot is free for the next run.")


def release_orphaned_runs() -> list[str]:
    """Fail (or cancel) the runs the last life of this role left in progress; their ids. Reads DAGSTER_HOME."""
    from dagster import DagsterInstance, DagsterRunStatus, RunsFilter
    from dagster._core.launcher import DefaultRunLauncher
    from dagster._core.storage.tags import GRPC_INFO_TAG

    with DagsterInstance.get() as instance:
        if not isinstance(instance.run_launcher, DefaultRunLauncher):
            return []
        unfinished = [DagsterRunStatus.STARTING, DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING]
        released = []
        for run in instance.get_runs(RunsFilter(statuses=unfinished)):
            if GRPC_INFO_TAG not in run.tags:
                continue
            if run.status == DagsterRunStatus.CANCELING:
                instance.report_run_canceled(run, message=WHY)
            else:
                instance.report_run_failed(run, message=WHY)
            log.warning("run %s of %s was left %s by the role's last life: marked ended", run.run_id, run.job_name,
                        run.status.value)
            released.append(run.run_id)
        return released
