"""Helpers shared by the FX modules (dollar_strength, fx_carry, fx_volatility, em_fx_stress, safe_havens).
Registers nothing (underscore file).

Quote conventions: FRED quotes EUR, GBP and AUD as US dollars per foreign unit (a rise is a weaker
dollar) and the others as foreign units per US dollar (a rise is a stronger dollar). Everything here is
turned into one orientation: the dollar's own log return, positive when the dollar strengthens."""
from __future__ import annotations

import numpy as np
import polars as pl

from intel import envelope, indicators
from intel.frames import Frames

# series: (market pair label, foreign currency, True when FRED quotes US dollars per foreign unit)
PAIRS: dict[str, tuple[str, str, bool]] = {
    "DEXUSEU": ("EURUSD", "EUR", True), "DEXUSUK": ("GBPUSD", "GBP", True), "DEXUSAL": ("AUDUSD", "AUD", True),
    "DEXJPUS": ("USDJPY", "JPY", False), "DEXCAUS": ("USDCAD", "CAD", False), "DEXSZUS": ("USDCHF", "CHF", False),
    "DEXCHUS": ("USDCNY", "CNY", False), "DEXMXUS": ("USDMXN", "MXN", False),
}
BROAD = "DTWEXBGS"
YEAR_OBS, MONTH_OBS = 252, 21  # FX trades on business days
SETTING = "fixed threshold of the module (a setting, not data)"  # operation of a threshold (envelope.constant)


def quote_of(series_id: str) -> str:
    label, ccy, usd_per_foreign = PAIRS[series_id]
    return f"USD per {ccy}" if usd_per_foreign else f"{ccy} per USD"


def usd_log_returns(frame: pl.DataFrame, usd_per_foreign: bool) -> tuple[np.ndarray, np.ndarray]:
    """(day numbers of the later observation, daily log returns of the dollar against the currency):
    positive means the dollar strengthened, whatever the quote convention."""
    days, rets = indicators.dated_changes(frame, "log")
    return days, (-rets if usd_per_foreign else rets)


def usd_index(frame: pl.DataFrame, usd_per_foreign: bool) -> np.ndarray:
    """The quote turned into 'foreign units per dollar' so that a rise is always a stronger dollar."""
    values = frame["value"].to_numpy().astype(float)
    return 1.0 / values if usd_per_foreign else values


def annualised_pct(std):
    return indicators.annualize(std, YEAR_OBS)


def lagged_change(values: np.ndarray, n: int) -> np.ndarray:
    """Log change over n observations at each point (NaN during warm-up)."""
    out = np.full(len(values), np.nan)
    if len(values) > n:
        out[n:] = np.log(values[n:] / values[:-n])
    return out


def standing(history: np.ndarray, value: float | None) -> tuple[float | None, float | None]:
    """(percentile rank, z-score) of `value` against the finite values of `history` (at least two)."""
    return indicators.percentile_of(history, value, 2), indicators.zscore_of(history, value, 2)


# ---- a return traced to named observations (the value indicators.return_pct gives) ----


def observed_return(frames: Frames, series_id: str, n: int, skip: int = 0, op: str | None = None):
    """indicators.return_pct of the series' values (n observations back, ending `skip` before the last) as a
    pct_change of the two named observations."""
    end, base = envelope.nth_obs(frames, series_id, -1 - skip), envelope.nth_obs(frames, series_id, -1 - n)
    return envelope.pct_change(end, base, 2, op) if end and base and skip < n else None
