"""One role of the service on its own (`marketintel api`, `worker`, `pipelines`), for deployments beyond one machine:
the same processes `marketintel up` supervises, from the same settings, against an external Redis and ledger that
the operator runs (`up` starts an embedded Redis and a SQLite ledger for one machine). `marketintel migrate` is run
once per ledger, before the roles.

What every process of a deployment must agree on comes from the environment, never from one machine's start-up:
the Redis server (`MI_REDIS_URL`), the ledger (`MI_DATABASE_URL`), the data source (`auto` is resolved by each
role alike: set `MI_SOURCE` to be sure) and, for a replay, the market clock's anchor (`MI_CLOCK_ANCHOR`)."""
from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console

console = Console(stderr=True)


def problems(settings, role: str) -> list[str]:
    """Why this role cannot start from these settings on its own (empty: it can)."""
    out = []
    if settings.redis_url is None:
        out.append("set MI_REDIS_URL to the deployment's Redis: every role must use the same server "
                   "(`marketintel up` runs an embedded one for a single machine)")
    if settings.source == "replay" and settings.clock_anchor is None and settings.clock_speed != 0:
        out.append("set MI_CLOCK_ANCHOR (the same epoch seconds for every role): a replay's clock runs from it")
    if role in ("api", "worker") and settings.database_url is None:
        console.print("[yellow]MI_DATABASE_URL is unset: the ledger is SQLite under MI_HOME, which only processes "
                      "on this machine share; use PostgreSQL beyond one machine")
    return out


def run_role(role: str) -> int:
    from marketintel.cli import children
    from marketintel.logs import configure
    from marketintel.prometheus import fresh_multiprocess_dir, serve_role_metrics
    from marketintel.settings import get_settings
    from marketintel.stop_request import StopRequest
    from marketintel.supervisor import Supervisor
    from pipelines.instance import ensure_dagster_home

    settings = get_settings()
    configure(role, settings.log_format)
    missing = problems(settings, role)
    if missing:
        for line in missing:
            console.print(f"[red]marketintel {role}: {line}")
        return 2
    settings.home.mkdir(parents=True, exist_ok=True)
    if role == "pipelines":
        os.environ["DAGSTER_HOME"] = str(ensure_dagster_home(settings).resolve())
        from pipelines.orphaned_runs import release_orphaned_runs

        release_orphaned_runs()  # before the daemon: a run the role's last life left "in progress" holds the queue
    fresh_multiprocess_dir(settings.home, role)  # the role's processes' Prometheus counts (the API's: /metrics)
    if role != "api":  # the API serves /metrics itself
        extra = []
        if role == "pipelines":
            from pipelines.run_metrics import DagsterRuns
            extra.append(DagsterRuns(Path(os.environ["DAGSTER_HOME"])))
        serve_role_metrics(settings.metrics_port, settings.metrics_host, extra)
    supervisor = Supervisor(children(settings, (role,)), env=dict(os.environ))
    with StopRequest() as stop:
        try:
            supervisor.start(stop)
            console.print(f"[green]{role} running[/] ({', '.join(c.name for c in supervisor.children)}); "
                          "Ctrl-C stops it")
            return supervisor.wait(stop)
        except KeyboardInterrupt:
            return 130
        finally:
            supervisor.stop()
