"""Calibration of the `sim` provider against the real history, side by side.

Run: `.venv/bin/python bench/calibration.py [history folder]` (default `../shared/data/history`). Prints each
statistic for the simulation (seed 7) and for the real series over the same window, its tolerance and
PASS/FAIL; exits 1 if any figure is outside its tolerance. `tests/intel/providers/test_sim_calibration.py`
imports the same functions.

Windows are the spans the real history covers for every series a statistic reads (SP500 starts in 2016,
bitcoin and the Nasdaq overlap 2019-2024), so both sides are measured on the same dates.

Tolerances (why they are this wide: each real figure is one path of history, and figures such as kurtosis,
drawdown and episode lengths hang on a handful of days, so a faithful model lands near, not on, them):
- annualized volatilities: within 20% of the real figure (relative);
- SP500 maximum drawdown: within 10 percentage points (absolute);
- SP500 excess kurtosis: within 50% of the real figure (relative): one crash day moves it by several units;
- correlations of daily changes: within 0.15 (absolute), enough to tell a haven from a risk asset;
- VIX stress spells (start on a close above 25, end on the first close below 20): mean length within 50%
  (relative) and share of days spent in them within 5 percentage points (absolute).

REAL_TARGETS holds the real figures as measured by this file on the history; the test checks them
against the history when it is present and checks the simulation against them when it is not.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from intel.providers.replay import read_series_csv  # noqa: E402
from intel.providers.sim import SimProvider  # noqa: E402

HISTORY = (ROOT / ".." / "shared" / "data" / "history").resolve()
SEED = 7
EQUITY_WINDOW = (date(2016, 1, 4), date(2025, 12, 30))
CRYPTO_WINDOW = (date(2019, 2, 10), date(2024, 2, 8))
LONG_WINDOW = (date(2005, 1, 3), date(2025, 12, 30))
SPELL_ENTER, SPELL_EXIT = 25.0, 20.0

# A loader returns (dates, values) of one series within [start, end], ascending.
Loader = Callable[[str, date, date], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Stat:
    name: str
    window: tuple[date, date]
    measure: Callable[[Loader, tuple[date, date]], float]
    tolerance: float
    relative: bool  # tolerance as a fraction of the real figure, else in the statistic's own units

    def within(self, sim: float, real: float) -> bool:
        allowed = self.tolerance * abs(real) if self.relative else self.tolerance
        return bool(np.isfinite(sim)) and abs(sim - real) <= allowed

    def describe_tolerance(self) -> str:
        return f"±{self.tolerance:.0%}" if self.relative else f"±{self.tolerance:g}"


# ---- the statistics ---------------------------------------------------------------------------------

def log_returns(values: np.ndarray) -> np.ndarray:
    return np.diff(np.log(values))


def annual_vol(loader: Loader, window, series_id: str, periods: int) -> float:
    _, values = loader(series_id, *window)
    return float(np.std(log_returns(values), ddof=1) * np.sqrt(periods))


def yield_vol_bp(loader: Loader, window, series_id: str = "DGS10") -> float:
    """Annualized standard deviation of daily yield changes, in basis points."""
    _, values = loader(series_id, *window)
    return float(np.std(np.diff(values) * 100, ddof=1) * np.sqrt(252))


def max_drawdown(loader: Loader, window, series_id: str = "SP500") -> float:
    """The largest fall from a running peak within the window, as a fraction."""
    _, values = loader(series_id, *window)
    return float(np.max(1 - values / np.maximum.accumulate(values)))


def excess_kurtosis(loader: Loader, window, series_id: str = "SP500") -> float:
    _, values = loader(series_id, *window)
    r = log_returns(values)
    r = r - r.mean()
    return float(np.mean(r**4) / np.mean(r**2) ** 2 - 3)


def change_correlation(loader: Loader, window, a: str, b: str) -> float:
    """Correlation of changes between consecutive dates both series have: log returns for prices
    (equities, crypto), differences for yields, spreads and the VIX."""
    (da, va), (db, vb) = loader(a, *window), loader(b, *window)
    common, ia, ib = np.intersect1d(da, db, return_indices=True)
    changes = [log_returns(v[i]) if sid in PRICES else np.diff(v[i]) for sid, v, i in ((a, va, ia), (b, vb, ib))]
    return float(np.corrcoef(*changes)[0, 1])


def stress_spells(values: np.ndarray) -> list[int]:
    """Lengths (in observations) of VIX stress spells: entered on a close above SPELL_ENTER, left on the
    first close below SPELL_EXIT (the gap between the two keeps a noisy crossing from counting twice)."""
    spells, length = [], 0
    for v in values.tolist():
        if length:
            if v < SPELL_EXIT:
                spells.append(length)
                length = 0
            else:
                length += 1
        elif v > SPELL_ENTER:
            length = 1
    return spells + ([length] if length else [])


def spell_mean_length(loader: Loader, window) -> float:
    spells = stress_spells(loader("VIXCLS", *window)[1])
    return float(np.mean(spells)) if spells else 0.0


def spell_share(loader: Loader, window) -> float:
    values = loader("VIXCLS", *window)[1]
    return float(sum(stress_spells(values)) / len(values))


PRICES = {"SP500", "NASDAQCOM", "CBBTCUSD"}

STATS: tuple[Stat, ...] = (
    Stat("SP500 annualized vol", EQUITY_WINDOW, lambda ld, w: annual_vol(ld, w, "SP500", 252), 0.20, True),
    Stat("BTC annualized vol", CRYPTO_WINDOW, lambda ld, w: annual_vol(ld, w, "CBBTCUSD", 365), 0.20, True),
    Stat("10y yield vol (bp/yr)", LONG_WINDOW, yield_vol_bp, 0.20, True),
    Stat("SP500 max drawdown", EQUITY_WINDOW, max_drawdown, 0.10, False),
    Stat("SP500 excess kurtosis", EQUITY_WINDOW, excess_kurtosis, 0.50, True),
    Stat("corr SP500 / VIX", EQUITY_WINDOW, lambda ld, w: change_correlation(ld, w, "SP500", "VIXCLS"), 0.15, False),
    Stat("corr SP500 / HY spread", EQUITY_WINDOW,
         lambda ld, w: change_correlation(ld, w, "SP500", "BAMLH0A0HYM2"), 0.15, False),
    Stat("corr SP500 / 10y yield", EQUITY_WINDOW, lambda ld, w: change_correlation(ld, w, "SP500", "DGS10"),
         0.15, False),
    Stat("corr BTC / Nasdaq", CRYPTO_WINDOW, lambda ld, w: change_correlation(ld, w, "CBBTCUSD", "NASDAQCOM"),
         0.15, False),
    Stat("VIX>25 spell mean length (days)", LONG_WINDOW, spell_mean_length, 0.50, True),
    Stat("share of days in VIX>25 spells", LONG_WINDOW, spell_share, 0.05, False),
)

# The real figures, as this file measures them on ../shared/data/history (printed by the bench with
# --targets); used when the history is absent.
REAL_TARGETS: dict[str, float] = {
    'SP500 annualized vol': 0.1818,
    'BTC annualized vol': 0.6904,
    '10y yield vol (bp/yr)': 90.03,
    'SP500 max drawdown': 0.3392,
    'SP500 excess kurtosis': 16.55,
    'corr SP500 / VIX': -0.7912,
    'corr SP500 / HY spread': -0.6,
    'corr SP500 / 10y yield': 0.1464,
    'corr BTC / Nasdaq': 0.3419,
    'VIX>25 spell mean length (days)': 40.44,
    'share of days in VIX>25 spells': 0.259,
}


# ---- loaders ----------------------------------------------------------------------------------------

def sim_loader(seed: int = SEED) -> Loader:
    provider = SimProvider(seed=seed)

    def load(series_id: str, start: date, end: date) -> tuple[np.ndarray, np.ndarray]:
        frame = provider.observations([series_id], start, end)
        return frame["date"].to_numpy(), frame["value"].to_numpy()
    return load


def history_loader(folder: Path = HISTORY) -> Loader:
    cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def load(series_id: str, start: date, end: date) -> tuple[np.ndarray, np.ndarray]:
        if series_id not in cache:
            frame = read_series_csv(Path(folder) / f"{series_id}.csv")
            cache[series_id] = frame["date"].to_numpy(), frame["value"].to_numpy()
        dates, values = cache[series_id]
        keep = (dates >= np.datetime64(start)) & (dates <= np.datetime64(end))
        return dates[keep], values[keep]
    return load


def measure(loader: Loader) -> dict[str, float]:
    return {stat.name: stat.measure(loader, stat.window) for stat in STATS}


def compare(sim: dict[str, float], real: dict[str, float]) -> list[tuple[Stat, float, float, bool]]:
    return [(stat, sim[stat.name], real[stat.name], stat.within(sim[stat.name], real[stat.name])) for stat in STATS]


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 and not argv[1].startswith("--") else HISTORY
    if folder.is_dir():
        real, label = measure(history_loader(folder)), f"real ({folder})"
    else:
        real, label = REAL_TARGETS, "real (recorded targets: history folder absent)"
    if "--targets" in argv:
        for name, value in real.items():
            print(f"    {name!r}: {value:.4g},")
        return 0
    rows = compare(measure(sim_loader()), real)
    print(f"sim seed {SEED} against {label}")
    print(f"{'statistic':<34}{'window':<24}{'sim':>9}{'real':>9}{'tolerance':>11}  result")
    for stat, s, r, ok in rows:
        window = f"{stat.window[0]}..{stat.window[1]}"
        verdict = "PASS" if ok else "FAIL"
        print(f"{stat.name:<34}{window:<24}{s:>9.3f}{r:>9.3f}{stat.describe_tolerance():>11}  {verdict}")
    failed = sum(not ok for *_, ok in rows)
    print(f"{len(rows) - failed}/{len(rows)} within tolerance")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
