"""What the running service costs its machine when nobody asks it anything: `marketintel up` on simulated data
(sources with no new observation between its refreshes), no request at all, for BENCH_IDLE_SECONDS (600).

Each process of the stack is measured with everything it started: its own CPU time, its reaped children's, and
its live descendants' (a Dagster run is a child of the daemon), as the difference between the start and the end
of the window, in cores (CPU seconds per second). The API is listed apart: the target is what everything else
takes. Also printed: the Dagster runs launched in the window and how they ended.

Run: `.venv/bin/python bench/idle.py` (BENCH_IDLE_SECONDS to shorten it)."""
from __future__ import annotations

import os
import sqlite3
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stack import running_stack  # noqa: E402

SECONDS = float(os.environ.get("BENCH_IDLE_SECONDS", "600"))
# after start-up: the first refresh and its sensors' first ticks are not idling
SETTLE_S = float(os.environ.get("BENCH_IDLE_SETTLE_SECONDS", "150"))
TARGET_CORES = 0.15  # issue 36: everything but the API, on average


def cpu_with_descendants(process: psutil.Process) -> float:
    """CPU seconds of the process, its reaped children and its live descendants."""
    total = 0.0
    for p in [process, *process.children(recursive=True)]:
        try:
            times = p.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


def runs_since(dagster_home: Path, since: float) -> dict[str, int]:
    """The Dagster runs created since `since` (unix seconds), by status, from the instance's run storage."""
    found = list(dagster_home.rglob("runs.db"))
    if not found:
        return {}
    with sqlite3.connect(f"file:{found[0]}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT status, COUNT(*) FROM runs WHERE create_timestamp >= datetime(?, 'unixepoch') "
                          "GROUP BY status", (since,)).fetchall()
    return dict(rows)


def main() -> None:
    base_env = {**os.environ, "MI_SOURCE": "sim"}
    with running_stack(base_env) as (env, processes, ports):
        roles = {**processes, "supervisor (up)": psutil.Process(ports["up"].pid)}
        redis = [p for p in psutil.Process(ports["up"].pid).children() if "redis-server" in " ".join(p.cmdline())]
        roles.update({"redis": redis[0]} if redis else {})
        sweeper = [p for p in psutil.Process(ports["up"].pid).children() if "jobs.webhooks" in " ".join(p.cmdline())]
        roles.update({"webhook sweeper": sweeper[0]} if sweeper else {})
        print(f"settling {SETTLE_S:.0f} s after start-up, then measuring {SECONDS:.0f} s with no request", flush=True)
        time.sleep(SETTLE_S)
        own = {name: p.cpu_times() for name, p in roles.items() if name == "supervisor (up)"}
        before, started, wall = {n: cpu_with_descendants(p) for n, p in roles.items()}, time.time(), time.monotonic()
        time.sleep(SECONDS)
        elapsed = time.monotonic() - wall
        after = {n: cpu_with_descendants(p) for n, p in roles.items()}
        # the supervisor's descendants are the roles: count its own time only
        up_own = roles["supervisor (up)"].cpu_times()
        after["supervisor (up)"] = up_own.user + up_own.system
        before["supervisor (up)"] = own["supervisor (up)"].user + own["supervisor (up)"].system
        cores = {name: (after[name] - before[name]) / elapsed for name in roles}
        runs = runs_since(Path(env["MI_HOME"]) / "dagster", started)
    print(f"\nidle stack, {elapsed:.0f} s, no request (simulated data):")
    print("| process | cores (average) |\n|---|---|")
    for name, value in sorted(cores.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {value:.3f} |")
    rest = sum(v for n, v in cores.items() if n != "api")
    print(f"everything but the API: {rest:.3f} cores (target < {TARGET_CORES})")
    print(f"Dagster runs launched in the window: {sum(runs.values())} {runs}")


if __name__ == "__main__":
    main()
