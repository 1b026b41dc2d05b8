"""Helpers shared by the FX modules (dollar_strength, fx_carry, fx_volatility, em_fx_stress, safe_havens).
Registers nothing (underscore file).

Quote conventions: FRED quotes EUR, GBP and AUD as US dollars per foreign unit (a rise is a weaker
dollar) and the others as foreign units per US dollar (a rise is a stronger dollar). Everything here is
turned into one orientation: the dollar's own log return, positive when the dollar strengthens."""
from __future__ import annotations

from datetime import timedelta

import numpy as np
import polars as pl

from intel import envelope as env
from intel import indicators as ind
from intel.frames import Frames
from intel.modules._common import HORIZONS

# series: (market pair label, foreign currency, True when FRED quotes US dollars per foreign unit)
PAIRS: dict[str, tuple[str, str, bool]] = {
    "DEXUSEU": ("EURUSD", "EUR", True), "DEXUSUK": ("GBPUSD", "GBP", True), "DEXUSAL": ("AUDUSD", "AUD", True),
    "DEXJPUS": ("USDJPY", "JPY", False), "DEXCAUS": ("USDCAD", "CAD", False), "DEXSZUS": ("USDCHF", "CHF", False),
    "DEXCHUS": ("USDCNY", "CNY", False), "DEXMXUS": ("USDMXN", "MXN", False),
}
BROAD = "DTWEXBGS"
YEAR_OBS, MONTH_OBS = 252, 21  # FX trades on business days
SETTING = "fixed threshold of the module (a setting, not data)"  # the operation of a threshold env.constant publishes


def quote_of(series_id: str) -> str:
    label, ccy, usd_per_foreign = PAIRS[series_id]
    return f"USD per {ccy}" if usd_per_foreign else f"{ccy} per USD"


def usd_log_returns(frame: pl.DataFrame, usd_per_foreign: bool) -> tuple[np.ndarray, np.ndarray]:
    """(day numbers of the later observation, daily log returns of the dollar against the currency):
    positive means the dollar strengthened, whatever the quote convention."""
    days, rets = ind.dated_changes(frame, "log")
    return days, (-rets if usd_per_foreign else rets)


def usd_index(frame: pl.DataFrame, usd_per_foreign: bool) -> np.ndarray:
    """The quote turned into 'foreign units per dollar' so that a rise is always a stronger dollar."""
    values = frame["value"].to_numpy().astype(float)
    return 1.0 / values if usd_per_foreign else values


def annualised_pct(std):
    return ind.annualize(std, YEAR_OBS)


def lagged_change(values: np.ndarray, n: int) -> np.ndarray:
    """Log change over n observations at each point (NaN during warm-up)."""
    out = np.full(len(values), np.nan)
    if len(values) > n:
        out[n:] = np.log(values[n:] / values[:-n])
    return out


def standing(history: np.ndarray, value: float | None) -> tuple[float | None, float | None]:
    """(percentile rank, z-score) of `value` against the finite values of `history` (at least two)."""
    return ind.percentile_of(history, value, 2), ind.zscore_of(history, value, 2)


# ---- figures traced to named observations (the same values horizon_returns and return_pct give) ----

def observed_returns(frames: Frames, series_id: str, horizons=("1d", "1w", "1m", "3m", "6m", "1y"),
                     ytd: bool = True, digits: int = 2) -> dict:
    """horizon_returns' percent changes, each a pct_change of the last observation and the one it is compared
    with (the previous one for 1d, the last on or before the calendar date for the rest), so an agent can
    recompute every change from two named quotes."""
    frame = frames.get(series_id)
    last = env.last_obs(frames, series_id)
    out = {}
    for h in horizons:
        if h == "1d":
            base = env.nth_obs(frames, series_id, -2)
        else:
            found = ind.value_on_or_before(frame, last[1] - timedelta(days=HORIZONS[h]))
            base = (series_id, *found) if found else None
        out[f"change_{h}_pct"] = _change(last, base, digits)
    if ytd:
        found = ind.value_on_or_before(frame, last[1].replace(month=1, day=1) - timedelta(days=1))
        out["change_ytd_pct"] = _change(last, (series_id, *found) if found else None, digits)
    return out


def observed_return(frames: Frames, series_id: str, n: int, skip: int = 0, op: str | None = None):
    """ind.return_pct of the series' values (n observations back, ending `skip` before the last) as a
    pct_change of the two named observations."""
    end, base = env.nth_obs(frames, series_id, -1 - skip), env.nth_obs(frames, series_id, -1 - n)
    return _change(end, base, 2, op) if end and base and skip < n else None


def _change(a, b, digits: int, op: str | None = None):
    return env.pct_change(a, b, digits, op) if b is not None else None
