"""Dagster runs as Prometheus gauges, read from the instance at scrape time by the pipelines role's metrics server
(marketintel/roles.py): how many runs each job has in each state. The instance is the record (its run storage), so
a count needs no bookkeeping of its own and survives the daemon's restarts."""
from __future__ import annotations

from pathlib import Path

from dagster import DagsterInstance, DagsterRunStatus, RunsFilter
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from marketintel.prometheus import NS

STATES = (DagsterRunStatus.QUEUED, DagsterRunStatus.STARTED, DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE,
          DagsterRunStatus.CANCELED)


class DagsterRuns(Collector):
    def __init__(self, dagster_home: Path):
        self.home = Path(dagster_home)

    def collect(self):
        runs = GaugeMetricFamily(f"{NS}_dagster_runs", "Dagster runs in the instance, by job and state (queued, "
                                 "started, success, failure, canceled)", labels=["job", "status"])
        with DagsterInstance.from_config(str(self.home)) as instance:
            jobs = sorted({r.job_name for r in instance.get_runs(limit=1000)})
            for job in jobs:
                for state in STATES:
                    count = instance.get_runs_count(RunsFilter(job_name=job, statuses=[state]))
                    runs.add_metric([job, state.value.lower()], count)
        yield runs
