"""The compose topology as processes on this machine (bench/cluster_parts.py) under mixed load (bench/cluster_load.py),
through four faults (bench/cluster_faults.py): an API instance killed, Redis restarted, the Dagster daemon killed in
the middle of a run, PostgreSQL restarted. Prints a row per fault, the totals, the ledger check and whether the
instances' Prometheus counts agree with the load generator's.

    PYTHONPATH=. .venv/bin/python -m bench.cluster

BENCH_API_WORKERS (default 2) gunicorn workers per instance; the refresh schedule runs at its default period (2 min).
tests/deploy/test_cluster.py runs the same with one worker each and holds the figures to their bounds."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench.cluster_faults import FAULTS, ledger_problems, prometheus_disagreements
from bench.cluster_load import MixedLoad, by_status
from bench.cluster_parts import Cluster
from bench.faults import statuses_text

MIX = {"cached": 4, "paid": 6, "l402": 3, "ask": 1}  # clients of each kind, each about one request a second
FUNDING_SATS = 100_000
COLUMNS = ("fault", "requests", "statuses", "p99_ms", "part_back_s", "recover_s", "failovers", "note")


def run_cluster(folder: Path, api_workers: int, refresh_minutes: int, mix: dict = MIX, publish=None) -> dict:
    """Start the cluster, publish (a first refresh run, or `publish(redis_url)`), load it through every fault; the
    figures."""
    began = time.monotonic()
    with Cluster(folder, api_workers=api_workers, refresh_minutes=refresh_minutes) as cluster:
        started_s = time.monotonic() - began
        if publish is not None:
            publish(cluster.redis_url)
        elif (first := cluster.wait_for_run(cluster.submit("refresh_job"))) != "SUCCESS":
            raise RuntimeError(f"the first refresh ended {first}\n{cluster.roles['pipelines'].log_tail()}")
        load = MixedLoad(cluster.bases, cluster.node)
        thread = load.start(mix, FUNDING_SATS)
        runs = [fault(cluster, load) for fault in FAULTS]
        time.sleep(2.0)
        load.stop.set()
        thread.join(30)
        time.sleep(0.5)  # the last answers' counts are written after their responses
        from tests.e2e.paid_load import ledger_by_agent
        from warehouse.ledger import make_engine

        engine = make_engine(cluster.database_url)
        try:
            by_agent = ledger_by_agent(engine)
            ledger = ledger_problems(engine, by_agent, load, FUNDING_SATS)
        finally:
            engine.dispose()
        charged = {rid for entry in by_agent.values() for rid in entry["queries"]}
        prometheus, figures = prometheus_disagreements(cluster, load, charged)
        served = [a for a in load.answers if a.kind != "setup"]
        out = {"started_s": round(started_s, 1), "runs": runs, "rows": [r.row for r in runs],
               "total": len(served), "statuses": by_status(served), "seconds": round(load.now(), 1),
               "kinds": {kind: len([a for a in served if a.kind == kind]) for kind in mix},
               "ledger": ledger, "prometheus": prometheus, "scraped": figures,
               "role_metrics": {name: cluster.role_metrics(name) for name in ("worker-1", "pipelines")},
               "events": list(cluster.events), "load": load, "logs": cluster.log_tails()}
    return {**out, "stopped": cluster.stopped, "left": cluster.left}


def table(rows: list[dict]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = [statuses_text(r["statuses"]) if c == "statuses" else r[c] for c in COLUMNS]
        lines.append("| " + " | ".join("-" if c is None else str(c) for c in cells) + " |")
    return "\n".join(lines)


def main() -> int:
    folder = Path(tempfile.mkdtemp(prefix="mi-bench-cluster-"))
    try:
        out = run_cluster(folder, int(os.environ.get("BENCH_API_WORKERS", "2")), refresh_minutes=2)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"Cluster on one machine: 2 API instances, 2 worker hosts, the pipelines role on PostgreSQL; up in "
          f"{out['started_s']} s. Simulated data. Mixed load {MIX} for {out['seconds']} s.")
    print(table(out["rows"]))
    print(f"\nrequests served: {out['total']} ({out['kinds']}); statuses over the whole run: {out['statuses']}")
    print(f"restart policy: {out['events'] or 'nothing restarted'}")
    print(f"ledger: {'every sat accounted for' if not out['ledger'] else out['ledger']}")
    print(f"prometheus vs load generator: {'agree' if not out['prometheus'] else out['prometheus']} "
          f"{out['scraped']}")
    return 0 if not out["ledger"] and not out["prometheus"] else 1


if __name__ == "__main__":
    sys.exit(main())
