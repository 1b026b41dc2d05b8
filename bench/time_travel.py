"""Time travel, cold: a module computed as of a past moment from a warehouse copy holding the real history
(../shared/data/history, written once as a backfill would), with no cache in front. Prints p50 and p95 per call
over every non-ticker module at BENCH_POINTS (40) random past days from 2008 to 2025, and the slowest modules.

Run: `.venv/bin/python bench/time_travel.py` (about a minute). The target (issue 32): p50 < 100 ms."""
from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from intel.envelope import InsufficientData  # noqa: E402
from intel.providers.replay import ReplayProvider  # noqa: E402
from intel.registry import modules  # noqa: E402
from warehouse.duckdb_store import Warehouse  # noqa: E402
from warehouse.time_travel import payload_at  # noqa: E402

POINTS = int(os.environ.get("BENCH_POINTS", "40"))
HISTORY = ROOT.parent / "shared" / "data" / "history"


def main() -> None:
    provider = ReplayProvider(HISTORY)
    end = datetime(2026, 1, 5, 21, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "analyst.duckdb"
        started = time.perf_counter()
        with Warehouse(path) as store:
            store.write_observations(provider.observations(provider.series_ids(), date(1900, 1, 1), end), "replay",
                                     end)
        print(f"warehouse of the real history written in {time.perf_counter() - started:.1f} s, "
              f"{path.stat().st_size / 1e6:.1f} MB")
        rng = random.Random(7)
        days = [date(2008, 1, 2) + timedelta(days=rng.randrange(18 * 365)) for _ in range(POINTS)]
        names = sorted(n for n, m in modules().items() if not m.takes_ticker)
        timings, by_module = [], {n: [] for n in names}
        for day in days:
            name = rng.choice(names)
            for name in (name, rng.choice(names), rng.choice(names)):
                started = time.perf_counter()
                try:
                    payload_at(path, modules()[name], day, "replay")
                except InsufficientData:
                    pass
                ms = (time.perf_counter() - started) * 1000
                timings.append(ms)
                by_module[name].append(ms)
        timings.sort()
        print(f"as_of cold, {len(timings)} calls: p50 {statistics.median(timings):.1f} ms, "
              f"p95 {timings[int(len(timings) * 0.95)]:.1f} ms (target p50 < 100 ms)")
        slowest = sorted(((statistics.median(v), n) for n, v in by_module.items() if v), reverse=True)[:5]
        print("slowest modules (p50):", ", ".join(f"{n} {ms:.0f} ms" for ms, n in slowest))


if __name__ == "__main__":
    main()
