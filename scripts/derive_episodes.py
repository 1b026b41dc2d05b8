"""Recompute every derived figure of the historical-parallels episode file from the real history.

    PYTHONPATH=. python scripts/derive_episodes.py [--data ../shared/data] [--check]

Reads the curated fields (id, name, start, end, tags, narrative) from intel/parallels/episodes.json, the
monthly long histories (`<data>/long`: Shiller's S&P, CAPE, long rate, CPI; monthly gold) and the daily and
monthly FRED-shaped series (`<data>/history`), and rewrites the file with each episode's state at its start,
its state tags, what happened next and bitcoin's own figures where CBBTCUSD has them. `--check` rewrites
nothing and exits 1 naming every episode whose stored figures differ from the recomputed ones."""
from __future__ import annotations

import argparse
import csv
import json
import sys
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from intel.catalog import release_lag  # noqa: E402
from intel.parallels.derive import derive  # noqa: E402
from intel.parallels.episodes import CURATED_FIELDS, EPISODES_FILE  # noqa: E402
from intel.parallels.readings import DAILY, MONTHLY_AVERAGE, MONTHLY_RELEASE, Line  # noqa: E402

DEFAULT_DATA = ROOT / ".." / "shared" / "data"

# series id -> (folder, how a row becomes known, release lag in days)
SERIES = {
    "SHILLER_SP500": ("long", MONTHLY_AVERAGE, 0),
    "SHILLER_CAPE": ("long", MONTHLY_AVERAGE, 0),
    "SHILLER_GS10": ("long", MONTHLY_AVERAGE, 0),
    "SHILLER_CPI": ("long", MONTHLY_RELEASE, release_lag("CPIAUCSL")),  # the same CPI, published as late
    "GOLD_MONTHLY": ("long", MONTHLY_AVERAGE, 0),
    "CPIAUCSL": ("history", MONTHLY_RELEASE, release_lag("CPIAUCSL")),
    "UNRATE": ("history", MONTHLY_RELEASE, release_lag("UNRATE")),
    "USREC": ("history", MONTHLY_AVERAGE, 0),  # read whole months only, for the window after the start
    **{s: ("history", DAILY, 0) for s in ("SP500", "DGS10", "DGS2", "DGS3MO", "T10Y2Y", "BAMLH0A0HYM2", "VIXCLS",
                                          "DTWEXBGS", "DCOILWTICO", "CBBTCUSD")},
}

SOURCES = {
    "SHILLER_SP500": "S&P composite, monthly average of daily closes (Robert Shiller, via datasets/s-and-p-500, "
                     "ODC-PDDL-1.0); the S&P 500 figures of episodes before 2017",
    "SHILLER_CAPE": "Cyclically adjusted price-earnings ratio (Robert Shiller, via datasets/s-and-p-500), to 2023-09",
    "SHILLER_GS10": "10-year Treasury long rate, monthly (Robert Shiller, via datasets/s-and-p-500), before 1980",
    "SHILLER_CPI": "Consumer price index, monthly (Robert Shiller, via datasets/s-and-p-500), before 1981",
    "GOLD_MONTHLY": "Gold in USD per troy ounce, monthly (datasets/gold-prices, ODC-PDDL-1.0)",
    "SP500": "S&P 500 daily close (FRED SP500, S&P Dow Jones Indices), 2016 on",
    "DGS10": "10-year Treasury constant-maturity yield (FRED DGS10, Federal Reserve H.15), 1980 on",
    "DGS2": "2-year Treasury constant-maturity yield (FRED DGS2, Federal Reserve H.15), 1980 on",
    "DGS3MO": "3-month Treasury constant-maturity yield (FRED DGS3MO, Federal Reserve H.15), 1990-2023",
    "T10Y2Y": "10-year minus 2-year Treasury spread (FRED T10Y2Y), 1980 on",
    "CPIAUCSL": "Consumer price index, all items, seasonally adjusted (FRED CPIAUCSL, BLS), 1980 on",
    "UNRATE": "Unemployment rate (FRED UNRATE, BLS), 1980 on",
    "BAMLH0A0HYM2": "ICE BofA US High Yield option-adjusted spread (FRED BAMLH0A0HYM2), 1996-12-31 to 2025",
    "VIXCLS": "CBOE Volatility Index close (FRED VIXCLS, CBOE), 1990 on",
    "DTWEXBGS": "Nominal broad US dollar index (FRED DTWEXBGS, Federal Reserve H.10), 2006 on",
    "DCOILWTICO": "WTI crude oil spot (FRED DCOILWTICO, EIA), 1986 on",
    "CBBTCUSD": "Bitcoin in USD (FRED CBBTCUSD, Coinbase), 2019-02-09 to 2024-02-09",
    "USREC": "NBER recession indicator (FRED USREC), 1980 on",
    "NBER business-cycle chronology (peaks and troughs)": "NBER's published US business-cycle peaks and troughs, "
                                                          "for recession flags before 1980",
}


def read_line(path: Path, series_id: str, kind: str, lag_days: int) -> Line:
    dates, values = [], []
    with path.open() as handle:
        for row in csv.DictReader(handle):
            if row["value"] not in ("", "."):
                dates.append(date.fromisoformat(row["date"]))
                values.append(float(row["value"]))
    return Line(series_id, tuple(dates), tuple(values), kind, lag_days)


def load_lines(data: Path) -> dict[str, Line]:
    missing = [f"{data / folder / sid}.csv" for sid, (folder, _, _) in SERIES.items()
               if not (data / folder / f"{sid}.csv").exists()]
    if missing:
        raise SystemExit(f"history files absent: {', '.join(missing)}")
    return {sid: read_line(data / folder / f"{sid}.csv", sid, kind, lag) for sid, (folder, kind, lag) in SERIES.items()}


def derived_document(current: dict, lines: dict[str, Line]) -> dict:
    episodes = [derive(lines, {k: e[k] for k in CURATED_FIELDS}) for e in current["episodes"]]
    return {**current, "sources": SOURCES, "episodes": episodes}


def differences(stored: dict, fresh: dict) -> list[str]:
    out = [f"top-level {k}" for k in fresh if k != "episodes" and stored.get(k) != fresh[k]]
    by_id = {e["id"]: e for e in stored.get("episodes", [])}
    for episode in fresh["episodes"]:
        old = by_id.get(episode["id"], {})
        keys = [k for k in episode if old.get(k) != episode[k]]
        if keys:
            out.append(f"{episode['id']}: {', '.join(keys)}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder holding long/ and history/")
    parser.add_argument("--file", type=Path, default=EPISODES_FILE, help="the episode file")
    parser.add_argument("--check", action="store_true", help="compare, do not rewrite; exit 1 on a difference")
    args = parser.parse_args(argv)
    stored = json.loads(args.file.read_text())
    fresh = derived_document(stored, load_lines(args.data.resolve()))
    if args.check:
        diff = differences(stored, fresh)
        for line in diff:
            print(f"differs: {line}")
        print(f"{len(fresh['episodes'])} episodes, {len(diff)} differing")
        return 1 if diff else 0
    args.file.write_text(json.dumps(fresh, indent=1) + "\n")
    print(f"wrote {len(fresh['episodes'])} episodes to {args.file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
