"""Provenance helpers the equity modules share: figures made from named closes (levels, returns over
calendar horizons or between two observations) that an agent can recompute, and counts kept inside a
scope. Registers nothing (underscore file)."""
from __future__ import annotations

from datetime import date, timedelta

import polars as pl

from intel import envelope as env
from intel.modules._common import HORIZONS

Obs = tuple[str, date, float]  # (series, date, value): an input of env.difference / ratio / pct_change
WORDS = {"1w": "1-week", "1m": "1-month", "3m": "3-month", "6m": "6-month", "1y": "1-year"}


def change_pct(a: Obs | None, b: Obs | None, digits: int = 2, op: str | None = None):
    """(a / b - 1) * 100 of two named observations; None when either is missing."""
    return None if a is None or b is None else env.pct_change(a, b, digits, op)


def calendar_returns(frame: pl.DataFrame, series_id: str, horizons=("1d", "1w", "1m", "3m", "6m", "1y"),
                     ytd: bool = True, price: str = "close") -> dict:
    """The figures of _common.horizon_returns (same keys, same values) from named closes: 1d against the
    previous close, the others against the close on or before as many calendar days earlier. `price` names
    the observations in the operations ("adjusted close" for the sector ETFs)."""
    last = env.last_obs(frame, series_id)
    out = {}
    for h in horizons:
        if h == "1d":
            out["change_1d_pct"] = change_pct(last, env.nth_obs(frame, series_id, -2), 2,
                                              f"1-day return: percent change from the previous {price}")
        else:
            base = env.obs_on_or_before(frame, series_id, last[1] - timedelta(days=HORIZONS[h]))
            out[f"change_{h}_pct"] = change_pct(last, base, 2, f"{WORDS[h]} return: percent change from the {price} "
                                                               f"on or before {HORIZONS[h]} calendar days earlier")
    if ytd:
        base = env.obs_on_or_before(frame, series_id, date(last[1].year - 1, 12, 31))
        out["change_ytd_pct"] = change_pct(last, base, 2, f"year-to-date return: percent change from the last "
                                                          f"{price} of the previous year")
    return out


def whole(x) -> str:
    """A count for a sentence: '12', never '12.0' ('n/a' when missing)."""
    return "n/a" if x is None else str(int(x))
