"""Speed of the pure computations and of the stores under them: the figures unit tests used to assert.

1. The pulse on sim inputs (every pulse input over the pipeline's lookback) and on a replay of the real
   history at 2020-03-16.
2. The four ticker modules on sim bars over each module's lookback, as the API computes them (before JSON).
3. The sim provider: a fresh provider's whole catalog over 2005-2026 (it builds the simulation), then the
   same call again on it (cached).
4. The replay provider: loading `../shared/data/history` and one read of every series in it.
5. The DuckDB warehouse: 400k rows into a fresh file, the same rows again (all unchanged, nothing written),
   and a point-in-time read of 20 of those series.
6. The SQLite ledger: a key lookup and a balance read while another connection holds the write lock
   (WAL: they go around it), and how long a queued writer takes to finish once the holder commits.

Each row: runs, median and p95 in ms, and the budget a unit test once asserted for it (exit 1 when a median
is over; the replay rows are skipped, saying why, when the history folder is absent).
Run: `.venv/bin/python bench/compute.py`."""
from __future__ import annotations

import statistics
import sys
import tempfile
import threading
import time
from datetime import date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import polars as pl  # noqa: E402

from intel.catalog import CATALOG  # noqa: E402
from intel.frames import Frames  # noqa: E402
from intel.providers.replay import ReplayProvider  # noqa: E402
from intel.providers.sim import SimProvider  # noqa: E402
from intel.pulse import PULSE_INPUTS, PULSE_LOOKBACK_DAYS, compute_pulse  # noqa: E402
from intel.registry import modules  # noqa: E402

HISTORY = (ROOT / ".." / "shared" / "data" / "history").resolve()
SIM_DAY, REPLAY_DAY = date(2026, 11, 20), date(2020, 3, 16)
TICKER_MODULES = ("technical_analysis", "price_levels", "momentum_score", "volatility_analysis")
# the bounds the unit tests asserted before issue 12 moved the figures here (ms)
BUDGET_MS = {"pulse": 100, "technical_analysis": 20, "price_levels": 50, "momentum_score": 50,
             "volatility_analysis": 50, "sim": 2000, "replay load": 1000, "duckdb write": 3000, "sqlite read": 1000}


def timed(fn, runs: int, setup=None) -> list[float]:
    """Milliseconds of each of `runs` calls of fn (given setup()'s result when there is one)."""
    out = []
    for _ in range(runs):
        arg = setup() if setup else None
        start = time.perf_counter()
        fn(arg) if setup else fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def pulse_rows(rows: list) -> None:
    sim = SimProvider(seed=7)
    long = sim.observations(PULSE_INPUTS, SIM_DAY - timedelta(days=PULSE_LOOKBACK_DAYS), SIM_DAY)
    frames = Frames.from_long(long, SIM_DAY, "sim")
    rows.append(("pulse, sim inputs", timed(lambda: compute_pulse(frames, []), 15), "pulse"))
    if HISTORY.is_dir():
        long = ReplayProvider(HISTORY).observations(PULSE_INPUTS, REPLAY_DAY - timedelta(days=PULSE_LOOKBACK_DAYS),
                                                    REPLAY_DAY)
        frames = Frames.from_long(long, REPLAY_DAY, "replay")
        rows.append((f"pulse, replay at {REPLAY_DAY}", timed(lambda: compute_pulse(frames, []), 15), "pulse"))
    registry, closed = modules(), SIM_DAY
    for name in TICKER_MODULES:
        module = registry[name]
        bars = sim.bars("XLK", closed - timedelta(days=module.lookback_days), closed)
        start = closed - timedelta(days=module.lookback_days)
        frames = Frames.from_long(sim.observations(module.inputs, start, closed), closed, "sim")
        module.compute(frames, bars, "XLK")  # warm: first calls import and compile
        rows.append((f"{name} ({bars.height} bars)", timed(lambda: module.compute(frames, bars, "XLK"), 20), name))


def provider_rows(rows: list) -> None:
    ids, start, end = sorted(CATALOG), date(2005, 1, 1), date(2026, 12, 31)
    rows.append((f"sim: whole catalog ({len(ids)} series, 22 y), fresh",
                 timed(lambda: SimProvider(seed=99).observations(ids, start, end), 5), "sim"))
    warm = SimProvider(seed=99)
    warm.observations(ids, start, end)
    rows.append(("sim: the same call again (cached)", timed(lambda: warm.observations(ids, start, end), 5), None))
    if HISTORY.is_dir():
        rows.append(("replay: load the history folder", timed(lambda: ReplayProvider(HISTORY), 5), "replay load"))
        replay = ReplayProvider(HISTORY)
        every = replay.series_ids()
        rows.append((f"replay: read all {len(every)} series",
                     timed(lambda: replay.observations(every, date(1900, 1, 1), date(2100, 1, 1)), 5), None))


def warehouse_rows(rows: list, tmp: Path) -> None:
    from warehouse.duckdb_store import Warehouse

    n_series, n_days = 80, 5000
    dates = pl.date_range(date(2005, 1, 1), date(2005, 1, 1) + timedelta(days=n_days - 1), eager=True)
    frame = pl.DataFrame({"series_id": pl.Series([f"S{i}" for i in range(n_series)]).repeat_by(n_days).explode(),
                          "date": pl.concat([dates] * n_series),
                          "value": pl.arange(0, n_series * n_days, eager=True).cast(pl.Float64)})
    first, again, reads = [], [], []
    for run in range(5):
        with Warehouse(tmp / f"wh{run}" / "warehouse.duckdb") as store:
            first += timed(lambda: store.write_observations(frame, "sim", datetime(2024, 3, 1)), 1)
            again += timed(lambda: store.write_observations(frame, "sim", datetime(2024, 3, 5)), 1)
            reads += timed(lambda: store.frames([f"S{i}" for i in range(20)], dates[-1], 10_000, "sim"), 3)
    rows += [("duckdb: write 400k rows, fresh file", first, "duckdb write"),
             ("duckdb: the same 400k again (unchanged)", again, "duckdb write"),
             ("duckdb: frames of 20 series x 5000 days", reads, None)]


def ledger_rows(rows: list, tmp: Path) -> None:
    from sqlalchemy import text

    from warehouse.ledger import Agents, Money, make_engine, migrate

    url = f"sqlite:///{tmp / 'ledger.sqlite'}"
    migrate(url)
    engine = make_engine(url)
    agents, money = Agents(engine), Money(engine)
    agent, key = agents.register("bench")
    rows.append(("sqlite: register (uncontended)", timed(lambda: agents.register("w"), 20), None))
    with engine.begin() as holder:  # BEGIN IMMEDIATE: the write lock is held while the reads run
        holder.execute(text("UPDATE agents SET name = 'held' WHERE id = :id"), {"id": agent["id"]})
        lookups = timed(lambda: agents.by_key(key), 50)
        balances = timed(lambda: money.balance(agent["id"]), 50)
    rows += [("sqlite: key lookup, write lock held", lookups, "sqlite read"),
             ("sqlite: balance read, write lock held", balances, "sqlite read")]
    waits = []
    for _ in range(10):
        done = threading.Event()
        writer = threading.Thread(target=lambda: (agents.register("queued"), done.set()))
        with engine.begin() as holder:
            holder.execute(text("UPDATE agents SET name = 'held' WHERE id = :id"), {"id": agent["id"]})
            writer.start()
            time.sleep(0.05)  # the writer reaches the lock and sleeps in SQLite's busy handler
        released = time.perf_counter()
        done.wait(30)
        waits.append((time.perf_counter() - released) * 1000)
        writer.join()
    rows.append(("sqlite: queued writer, done after commit", waits, None))
    engine.dispose()


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[94]


def main() -> int:
    rows: list[tuple[str, list[float], str | None]] = []
    started = time.perf_counter()
    if not HISTORY.is_dir():
        print(f"history folder absent at {HISTORY}: replay rows skipped")
    pulse_rows(rows)
    provider_rows(rows)
    with tempfile.TemporaryDirectory(prefix="mi-bench-compute-") as tmp:
        warehouse_rows(rows, Path(tmp))
        ledger_rows(rows, Path(tmp))
    print(f"{'case':<46}{'runs':>5}{'median ms':>11}{'p95 ms':>10}  budget (median)")
    over = 0
    for name, samples, budget in rows:
        median, limit = statistics.median(samples), BUDGET_MS.get(budget)
        verdict = "" if limit is None else f"{'ok' if median < limit else 'OVER'} (< {limit} ms)"
        over += verdict.startswith("OVER")
        print(f"{name:<46}{len(samples):>5}{median:>11.2f}{p95(samples):>10.2f}  {verdict}")
    print(f"{len(rows)} cases in {time.perf_counter() - started:.1f} s")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
