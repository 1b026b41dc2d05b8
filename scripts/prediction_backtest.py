"""The predictions back-test on the real history: probabilities fitted only on outcomes published before
2013-01-01, scored on the statements issued 2013-01-01..2024-12-31 and resolved by then.

    PYTHONPATH=. .venv/bin/python scripts/prediction_backtest.py [--history DIR] [--by-question]

Prints, per category, N, the base rate, the Brier score, the base-rate (climatology) Brier score, the
Brier skill score against it (and against the base rate known before each issue date), the log loss and
the expected calibration error, with whether a category of 200 or more cases meets the bar (BSS > 0 and
ECE < 0.05), then the wall time. Data: the FRED history files as stored (latest vintage, not first release)."""
from __future__ import annotations

import argparse
import time
from datetime import date
from pathlib import Path

import polars as pl

from intel.predictions.backtest import frozen_fit, run_backtest
from intel.predictions.scoring import score
from intel.providers.replay import read_series_csv

HISTORY = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "history"
FIT_CUTOFF, SCORE_FROM, SCORE_TO = date(2013, 1, 1), date(2013, 1, 1), date(2024, 12, 31)
BAR_MIN_CASES, BAR_ECE = 200, 0.05
COLUMNS = ("n", "base_rate", "brier", "brier_base_rate", "bss", "bss_prior", "log_loss", "ece")


def read_history(folder: Path) -> pl.DataFrame:
    parts = [read_series_csv(path).with_columns(pl.lit(path.stem).alias("series_id"))
             for path in sorted(folder.glob("*.csv"))]
    return pl.concat(parts).select("series_id", "date", "value")


def verdict(row: dict) -> str:
    if row["n"] < BAR_MIN_CASES:
        return "too few cases for the bar"
    passed = (row["bss"] or 0) > 0 and row["ece"] < BAR_ECE
    return "meets the bar" if passed else "misses the bar"


def print_table(groups: dict) -> None:
    print(f"{'group':<22}" + "".join(f"{c:>16}" for c in COLUMNS) + "  verdict")
    for name, row in groups.items():
        if not row["n"]:
            continue
        print(f"{name:<22}" + "".join(f"{row[c]!s:>16}" for c in COLUMNS) + f"  {verdict(row)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=Path, default=HISTORY)
    parser.add_argument("--by-question", action="store_true", help="also print one row per question")
    args = parser.parse_args()
    started = time.perf_counter()
    result = run_backtest(read_history(args.history), SCORE_FROM, SCORE_TO, frozen_fit(FIT_CUTOFF))
    by_id = {p["id"]: p for p in result.predictions}
    pairs = [(by_id[r["prediction_id"]], r) for r in result.resolutions]
    report = score(pairs, result.history)
    elapsed = time.perf_counter() - started
    print(f"back-test {SCORE_FROM}..{SCORE_TO}, fits on outcomes published before {FIT_CUTOFF} (frozen); "
          f"{len(result.predictions)} predictions, {len(pairs)} resolved by {SCORE_TO}")
    print("bss: against the scored set's own base rate (climatology); bss_prior: against the base rate known "
          "before each issue date")
    print_table(report["by_category"])
    pooled = report["overall"]
    print(f"all categories pooled: n {pooled['n']}, brier {pooled['brier']}, log loss {pooled['log_loss']}, "
          f"ece {pooled['ece']} (a pooled base rate mixes unlike questions: no bar verdict)")
    issued = {p["question"] for p in result.predictions}
    never = sorted(q for q in result.skipped if q not in issued)
    if never:
        print("no prediction issued (no fit before the cutoff, or inputs absent): " + ", ".join(never))
    if args.by_question:
        by_question = score([(dict(p, category=p["question"]), r) for p, r in pairs], result.history)
        print_table(by_question["by_category"])
    print(f"wall time {elapsed:.1f} s")


if __name__ == "__main__":
    main()
