"""Ingest throughput: a full replay ingest of the real history and a 15-year sim backfill, each into a fresh
DuckDB warehouse through the real provider and `Warehouse.write_observations` (what the `observations` asset
does on a first run: every series is new, so one provider call from the backfill start).
Run: `.venv/bin/python bench/ingest.py [history folder]` (default `../shared/data/history`). Target: under
10 s each on a 2-core machine; exits 1 if either misses it."""
from __future__ import annotations

import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from intel.catalog import CATALOG  # noqa: E402
from intel.providers.replay import ReplayProvider  # noqa: E402
from intel.providers.sim import SimProvider  # noqa: E402
from warehouse.duckdb_store import Warehouse  # noqa: E402

HISTORY = (ROOT / ".." / "shared" / "data" / "history").resolve()
TARGET_S = 10.0
EPOCH = date(1900, 1, 1)  # the ingest asset's backfill start for providers that are not simulations
SIM_YEARS = 15


def timed_ingest(make_provider, start_of, end: date, folder: Path) -> dict:
    """Build the provider, fetch every series it offers from `start_of(end)` to `end`, write them to a
    fresh warehouse; seconds per phase and rows."""
    t0 = time.perf_counter()
    provider = make_provider()
    t1 = time.perf_counter()
    frame = provider.observations(provider.series_ids(), start_of(end), end)
    t2 = time.perf_counter()
    with Warehouse(folder / "warehouse.duckdb") as store:
        written = store.write_observations(frame, provider.name, datetime.now(UTC))
        t3 = time.perf_counter()
        stored = store.observations_count()
    return {"load": t1 - t0, "fetch": t2 - t1, "write": t3 - t2, "total": t3 - t0, "rows": frame.height,
            "written": written, "stored": stored, "series": frame["series_id"].n_unique()}


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else HISTORY
    results = {}
    with tempfile.TemporaryDirectory(prefix="mi-bench-ingest-") as tmp:
        if folder.is_dir():
            replay_end = ReplayProvider(folder).default_start()  # the clock after the last observation
            (Path(tmp) / "replay").mkdir()
            results["replay (real history, all series)"] = timed_ingest(
                lambda: ReplayProvider(folder), lambda end: EPOCH, replay_end, Path(tmp) / "replay")
        else:
            print(f"history folder absent at {folder}: replay skipped")
        today = datetime.now(UTC).date()
        (Path(tmp) / "sim").mkdir()
        results[f"sim ({SIM_YEARS}-year backfill, {len(CATALOG)} series)"] = timed_ingest(
            SimProvider, lambda end: end - timedelta(days=round(365.25 * SIM_YEARS)), today, Path(tmp) / "sim")
    print(f"{'ingest':<40}{'series':>7}{'rows':>10}{'load s':>8}{'fetch s':>9}{'write s':>9}{'total s':>9}  target")
    missed = 0
    for name, r in results.items():
        ok = r["total"] < TARGET_S and r["written"] == r["rows"] == r["stored"]
        missed += not ok
        print(f"{name:<40}{r['series']:>7}{r['rows']:>10}{r['load']:>8.2f}{r['fetch']:>9.2f}{r['write']:>9.2f}"
              f"{r['total']:>9.2f}  {'PASS' if ok else 'MISS'} (< {TARGET_S:g} s)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
