"""Helpers shared by the macro modules liquidity, consumer, housing, economic_surprise and macro_regime:
monthly series on a contiguous calendar-month grid (gaps stay NaN, so a missing month never shifts a
comparison), growth rates, a logistic map, and the named observations behind a figure (for provenance).
Registers nothing (underscore file)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

import numpy as np
import polars as pl

from intel import envelope as env
from intel import indicators as ind
from intel import provenance as prov
from intel.frames import Frames
from intel.modules._common import month_grid, month_keys, month_label
from intel.regime import classify, regime_facts  # shared with the pulse: wrapped here, not edited

Obs = tuple[str, date, float]  # (series, date, value): an input of env.difference, ratio and pct_change


@dataclass(frozen=True)
class Monthly:
    """Values on a grid of consecutive calendar months starting at `start` (year*12 + month-1)."""
    start: int
    values: np.ndarray  # NaN where a month has no observation

    def period(self, i: int = -1) -> str:
        return month_label(self.start + (i % len(self.values)))

    def at(self, i: int = -1) -> float | None:
        """Value `i` positions from the grid start (negative: from the end), None when absent."""
        if -len(self.values) <= i < len(self.values):
            v = float(self.values[i])
            return v if math.isfinite(v) else None
        return None


def monthly(frame: pl.DataFrame) -> Monthly:
    """One value per calendar month (the last observation dated in that month)."""
    return Monthly(*month_grid(frame))


def logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, x))))


def asof_values(frame: pl.DataFrame, days: list[date] | pl.Series) -> np.ndarray:
    """Value of `frame` on or before each day, however old (NaN before the frame starts)."""
    grid = pl.Series(list(days), dtype=pl.Date).to_numpy().astype("datetime64[D]").astype(np.int64)
    return ind.asof(grid, ind.day_numbers(frame), frame["value"].to_numpy().astype(float), max_gap=None)


def aligned(a: Monthly, b: Monthly) -> tuple[Monthly, Monthly]:
    """Both series on one common month grid (the union of their spans, NaN where absent)."""
    start = min(a.start, b.start)
    end = max(a.start + len(a.values), b.start + len(b.values))

    def place(m: Monthly) -> Monthly:
        grid = np.full(end - start, np.nan)
        grid[m.start - start: m.start - start + len(m.values)] = m.values
        return Monthly(start, grid)

    return place(a), place(b)


def trim_to_last_finite(m: Monthly) -> Monthly | None:
    """Drop trailing months without a value (None when there is none at all)."""
    ok = np.flatnonzero(np.isfinite(m.values))
    return Monthly(m.start, m.values[: ok[-1] + 1]) if len(ok) else None


def winsorized(history: np.ndarray, k: float = 4.0) -> np.ndarray:
    """Finite history clipped to median +- k robust sigmas (1.4826 x median absolute deviation), so one
    extreme episode (the 2020 lockdown swings) cannot flatten a decade of z-scores."""
    h = history[np.isfinite(history)]
    if not len(h):
        return h
    med = float(np.median(h))
    mad = 1.4826 * float(np.median(np.abs(h - med)))
    return np.clip(h, med - k * mad, med + k * mad) if mad > 0 else h


# ---- named observations behind figures (provenance) ----

def month_obs(frames: Frames, series_id: str, m: Monthly, i: int = -1) -> Obs | None:
    """The observation behind position `i` of the series' month grid `m` (the last one dated in that month),
    None when the month has none."""
    frame = frames.get(series_id)
    if frame is None or m.at(i) is None:
        return None
    key = m.start + (i % len(m.values))
    rows = np.flatnonzero(month_keys(frame) == key)
    if not len(rows):
        return None
    row = int(rows[-1])
    return series_id, frame["date"][row], float(frame["value"][row])


def change_obs(a: Obs | None, b: Obs | None, kind: str, digits: int, op: str, scale: float = 1.0):
    """A change between two named observations, as ind.change_since computes it: `pct` the percent change,
    `bp` the difference in basis points, `diff` the difference times `scale`; None without both."""
    if a is None or b is None:
        return None
    if kind == "pct":
        return env.pct_change(a, b, digits, op=op)
    return env.difference(a, b, digits, scale=100.0 if kind == "bp" else scale, op=op)


def retag(frames: Frames, value, series_ids, op: str | None = None):
    """A figure already rounded elsewhere (intel/regime.py and intel/pulse.py, shared with the pulse, round
    their own) filed under these series, unchanged in value; None stays None."""
    if value is None or isinstance(value, bool):
        return value
    with prov.about(frames, *series_ids):
        return prov.tag(float(value), op)


def exact_or(figure, value, fallback):
    """The figure made from named observations when it reproduces the published value, else `fallback`
    (the same value resting on its series): a shared helper's formula may differ in the last bit."""
    return figure if figure is not None and value is not None and float(figure) == float(value) else fallback


# ---- the cross-asset regime (intel/regime.py), each figure filed under the series it rests on ----

CONTEXT_FACTS = ("yield_10y_change_1m_bp", "yield_2y_change_1m_bp")  # shown to readers; no rule scores them
FACT_SERIES = {"sp500_vs_sma200_pct": ("SP500",), "sp500_drawdown_1y_pct": ("SP500",), "vix": ("VIXCLS",),
               "vix_percentile_1y": ("VIXCLS",), "hy_oas_pct": ("BAMLH0A0HYM2",),
               "hy_oas_change_1m_bp": ("BAMLH0A0HYM2",), "yield_10y_change_1m_bp": ("DGS10",),
               "yield_2y_change_1m_bp": ("DGS2",), "dollar_change_3m_pct": ("DTWEXBGS",)}


def fact_series(frames: Frames, key: str) -> tuple[str, ...]:
    if key == "curve_2s10s_bp":  # T10Y2Y itself, or DGS10 - DGS2 when it is absent (regime.curve_2s10s_bp)
        return ("T10Y2Y",) if frames.get("T10Y2Y") is not None else ("DGS10", "DGS2")
    return FACT_SERIES[key]


def scoring_series(frames: Frames, facts: dict) -> list[str]:
    """The series behind the facts the rules score: every state score and probability rests on them."""
    out: dict[str, None] = {}
    for key in facts:
        if key not in CONTEXT_FACTS:
            out.update(dict.fromkeys(fact_series(frames, key)))
    return list(out)


def _exact_fact(frames: Frames, key: str):
    """The fact as named observations, where it is a level, a change or a drawdown of them."""
    last = lambda sid: env.last_obs(frames, sid)  # noqa: E731
    if key in ("vix", "hy_oas_pct"):
        return env.level(frames, fact_series(frames, key)[0], 2)
    if key == "curve_2s10s_bp":
        if frames.get("T10Y2Y") is not None:
            return env.level(frames, "T10Y2Y", 2, scale=100.0, op="T10Y2Y in bp")
        return env.difference(last("DGS10"), last("DGS2"), 2)
    changes = {"hy_oas_change_1m_bp": ("bp", 30, "change since 30 days earlier, in bp"),
               "yield_10y_change_1m_bp": ("bp", 30, "change since 30 days earlier, in bp"),
               "yield_2y_change_1m_bp": ("bp", 30, "change since 30 days earlier, in bp"),
               "dollar_change_3m_pct": ("pct", 91, "percent change since 91 days earlier")}
    if key in changes:
        kind, days, op = changes[key]
        sid = fact_series(frames, key)[0]
        return change_obs(last(sid), env.obs_days_before(frames, sid, days), kind, 2, op)
    if key == "sp500_drawdown_1y_pct":
        year = ind.window(frames.get("SP500"), 365)
        top = int(np.argmax(year["value"].to_numpy()))
        return env.pct_change(last("SP500"), ("SP500", year["date"][top], float(year["value"][top])), 2,
                              "percent below the highest close of the past year")
    return None


FACT_OPS = {"sp500_vs_sma200_pct": "percent distance from the 200-observation average",
            "vix_percentile_1y": "percentile rank within the past year"}


def traced_fact(frames: Frames, key: str, value):
    return exact_or(_exact_fact(frames, key), value, retag(frames, value, fact_series(frames, key),
                                                            FACT_OPS.get(key)))


def traced_regime(frames: Frames) -> dict:
    """regime.classify with each fact filed under its own series (named observations where exact), and the
    state scores, probabilities and ranked drivers under every scored series."""
    facts = regime_facts(frames)
    result = classify(frames, facts)
    scored = scoring_series(frames, facts)
    return {**result,
            "probabilities": {s: retag(frames, p, scored, "softmax of the state scores")
                              for s, p in result["probabilities"].items()},
            "scores": {s: retag(frames, v, scored, "sum of the points of the rules that fired for the state")
                       for s, v in result["scores"].items()},
            "facts": {k: traced_fact(frames, k, v) for k, v in result["facts"].items()},
            # a driver's place in the list is its rank by points, which reads every scored fact: its figures
            # rest on all of them (facts.<fact> names the fact's own observations)
            "drivers": [{**d, "value": retag(frames, d["value"], scored, f"value of the fact ranked {i + 1} by "
                                                                          f"rule points (see facts.{d['fact']})"),
                         "points": retag(frames, d["points"], scored, f"points of the fact ranked {i + 1} (half "
                                                                      "when stale)")}
                        for i, d in enumerate(result["drivers"])]}
