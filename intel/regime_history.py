"""The regime's daily history, point in time, and what it implies: transitions, durations, asset-class tilts.

Every label comes from `intel.regime.classify` (the classifier of the pulse and `market_regime`, one code
path) called on the inputs cut at that day: the label for day D reads only observations dated on or before D.
The history's statistics (transition counts, run lengths, forward returns per regime) look forward from past
days only, within the data the caller holds, so they too only use what was known by the market clock."""
from __future__ import annotations

from datetime import UTC, date, datetime

import numpy as np
import polars as pl

from intel.frames import Frames
from intel.indicators import day_numbers
from intel.regime import METHODOLOGY as RULES
from intel.regime import REGIME_INPUTS, STATES, classify

# Calendar days of inputs each day's classification sees: the market_regime module's window. `classify` reads at
# most the last year plus 200 sessions, so any window this long gives the same label as the whole history.
LOOKBACK_DAYS = 800
# The series whose observation dates make the trading-day calendar the labels are on.
CALENDAR_SERIES = ("SP500", "VIXCLS", "BAMLH0A0HYM2")
STEP_DAYS = 21  # a month of trading days: the transition step and the tilts' forward horizon
LABEL_SCHEMA = {"date": pl.Date, "state": pl.Utf8, "p_risk_on": pl.Float64, "p_neutral": pl.Float64,
                "p_risk_off": pl.Float64, "p_crisis": pl.Float64, "data_as_of": pl.Date}


class DailyCutter:
    """Frames cut at any day without copying: each series is split once into day numbers and a frame, and a
    day's cut is a searchsorted window of zero-copy slices, the same [day - LOOKBACK_DAYS, day] rows that
    `Warehouse.frames(REGIME_INPUTS, day, LOOKBACK_DAYS, ...)` reads."""

    def __init__(self, frames: Frames, series_ids=REGIME_INPUTS, lookback_days: int = LOOKBACK_DAYS):
        self.frames, self.lookback = frames, lookback_days
        self.parts = {sid: (day_numbers(f), f) for sid in series_ids if (f := frames.get(sid)) is not None}

    def at(self, day: date) -> Frames:
        n = _day_number(day)
        cut = {}
        for sid, (days, frame) in self.parts.items():
            lo, hi = np.searchsorted(days, n - self.lookback, "left"), np.searchsorted(days, n, "right")
            if hi > lo:
                cut[sid] = frame.slice(int(lo), int(hi - lo))
        return Frames(now=day, series=cut, data_source=self.frames.data_source, adjustments=self.frames.adjustments)


def _day_number(day: date) -> int:
    return int(np.datetime64(day, "D").astype(np.int64))


def trading_days(frames: Frames, after: date | None = None) -> list[date]:
    """The dates of the calendar series' observations (their union), after `after` when given, up to now."""
    dates: set[date] = set()
    for sid in CALENDAR_SERIES:
        frame = frames.get(sid)
        if frame is not None:
            dates.update(frame["date"].to_list())
    return sorted(d for d in dates if d <= frames.now and (after is None or d > after))


def daily_regimes(frames: Frames, days) -> pl.DataFrame:
    """One row per day in `days`: `classify` on the inputs cut at that day, its probabilities and the latest
    input observation it read (`data_as_of`)."""
    cutter = DailyCutter(frames)
    rows = []
    for day in days:
        cut = cutter.at(day)
        if not cut.series:
            continue
        result = classify(cut)
        p = result["probabilities"]
        rows.append((day, result["state"], p["risk_on"], p["neutral"], p["risk_off"], p["crisis"],
                     max(f["date"][-1] for f in cut.series.values())))
    return pl.DataFrame(rows, schema=LABEL_SCHEMA, orient="row")


# ---- transitions and durations -----------------------------------------------------------------------------

def transition_matrix(states, step: int = STEP_DAYS) -> dict:
    """Counts and row probabilities of state(t) -> state(t + step labelled trading days) over every labelled
    day t that has a day t + step; N per row. A row with no days has probabilities None."""
    codes = _codes(states)
    counts = np.zeros((len(STATES), len(STATES)), dtype=np.int64)
    if len(codes) > step:
        np.add.at(counts, (codes[:-step], codes[step:]), 1)
    totals = counts.sum(axis=1)
    return {"step_trading_days": step, "states": list(STATES),
            "counts": {a: {b: int(counts[i, j]) for j, b in enumerate(STATES)} for i, a in enumerate(STATES)},
            "probabilities": {a: ({b: round(float(counts[i, j] / totals[i]), 3) for j, b in enumerate(STATES)}
                                  if totals[i] else None) for i, a in enumerate(STATES)},
            "n": {a: int(totals[i]) for i, a in enumerate(STATES)}, "n_total": int(totals.sum())}


def _codes(states) -> np.ndarray:
    index = {s: i for i, s in enumerate(STATES)}
    return np.array([index[s] for s in states], dtype=np.int64)


def runs(states) -> list[tuple[str, int, int]]:
    """(state, first index, last index) of each run of equal consecutive labels."""
    out: list[tuple[str, int, int]] = []
    for i, s in enumerate(states):
        if out and out[-1][0] == s:
            out[-1] = (s, out[-1][1], i)
        else:
            out.append((s, i, i))
    return out


def expected_duration(states, state: str) -> dict:
    """How much longer a run of `state` lasts, in trading days, two ways. Empirical: over every past day in
    `state` within a run that has ended, the mean number of further days the run lasted (N days, M runs); the
    current run is left out as its end is unknown. Geometric: with p the 1-day persistence P(state -> state),
    a memoryless run lasts p / (1 - p) further days."""
    all_runs = runs(states)
    ended = all_runs[:-1]  # the last run is still going (or was cut by the end of the history)
    remaining = [last - i for s, first, last in ended if s == state for i in range(first, last + 1)]
    lengths = [last - first + 1 for s, first, last in ended if s == state]
    one_day = transition_matrix(states, 1)
    stay = one_day["counts"][state][state]
    n = one_day["n"][state]
    p = stay / n if n else None
    current = all_runs[-1] if all_runs and all_runs[-1][0] == state else None
    return {
        "state": state, "unit": "trading days",
        "current_run_days": current[2] - current[1] + 1 if current else None,
        "empirical_mean_remaining": round(float(np.mean(remaining)), 1) if remaining else None,
        "empirical_median_remaining": float(np.median(remaining)) if remaining else None,
        "empirical_n_days": len(remaining), "empirical_n_runs": len(lengths),
        "mean_run_length": round(float(np.mean(lengths)), 1) if lengths else None,
        "persistence_1d": round(p, 4) if p is not None else None, "persistence_n": n,
        "geometric_remaining": round(p / (1 - p), 1) if p is not None and p < 1 else None,
        "method": "empirical: mean further length of ended runs from each of their days in this state; "
                  "geometric: p / (1 - p) with p the 1-day persistence",
    }


# ---- asset-class tilts ---------------------------------------------------------------------------------------

# Approximate modified durations (years) for the yield-based total returns: a 10-year Treasury near par at 2-5%
# yields, and the ICE BofA US High Yield index (about 4 years for most of its history).
TREASURY_DURATION = 8.5
HY_DURATION = 4.0
# FRED's LBMA gold fixes: the tilt uses the first one held; the catalog carries none today.
GOLD_SERIES = ("GOLDAMGBD228NLBM", "GOLDPMGBD228NLBM")
MIN_N = 60  # days in the regime with a forward return before a tilt may leave neutral
T_THRESHOLD = 2.0
MAX_GAP_DAYS = 10  # an asset's value on a labelled day is its last observation at most this many days old
# asset class -> (series candidates, how its forward return is made)
TILT_ASSETS = {
    "equities": (("SP500",), "price"), "treasuries": (("DGS10",), "treasury"),
    "credit": (("BAMLH0A0HYM2",), "credit"), "commodities": (("DCOILWTICO",), "price"),
    "gold": (GOLD_SERIES, "price"), "cash": (("DGS3MO",), "cash"), "bitcoin": (("CBBTCUSD",), "price"),
}
TILT_SERIES = tuple(dict.fromkeys(s for ids, _ in TILT_ASSETS.values() for s in ids))
RETURN_METHODS = {
    "price": "price return of the series over the step (no dividends or roll yield)",
    "treasury": f"approximate 10-year Treasury total return: yield carry (DGS10 x calendar days / 365) minus "
                f"{TREASURY_DURATION} years of duration times the yield change",
    "credit": f"approximate high-yield excess return over Treasuries: spread carry (OAS x calendar days / 365) "
              f"minus {HY_DURATION} years of duration times the spread change",
    "cash": "3-month Treasury bill carry (DGS3MO x calendar days / 365)",
}
# Equities, Treasuries, commodities, gold and bitcoin are judged in excess of the bill over the same window, so a
# regime that came at high or low rates does not read as good or bad for everything; credit is already an excess
# return (over Treasuries). Cash is the other side of the bet: its tilt follows the risky classes' tilts.
EXCESS_OF_CASH = ("price", "treasury")
CASH_RULE = ("overweight when more of the measured risky classes are underweight than overweight in the current "
             "regime, underweight when more are overweight, neutral when they balance")
TILT_RULE = (f"overweight when the mean forward return in the current regime beats the unconditional mean with "
             f"t >= {T_THRESHOLD}, underweight when t <= -{T_THRESHOLD}, neutral otherwise or with fewer than "
             f"{MIN_N} days; t = (regime mean - unconditional mean) / (regime std / sqrt(N / step)), the N / step "
             f"effective observations because forward windows starting on consecutive days overlap")


def forward_returns(frames: Frames, series_id: str, kind: str, grid: np.ndarray, step: int) -> np.ndarray:
    """Return from each labelled day (day numbers `grid`) to the labelled day `step` later; NaN where either
    end has no recent observation or the window runs past the last labelled day."""
    frame = frames.get(series_id)
    out = np.full(len(grid), np.nan)
    if frame is None or len(grid) <= step:
        return out
    days, values = day_numbers(frame), frame["value"].to_numpy().astype(float)
    idx = np.searchsorted(days, grid, side="right") - 1
    fresh = (idx >= 0) & (grid - days[np.clip(idx, 0, None)] <= MAX_GAP_DAYS)
    v = np.where(fresh, values[np.clip(idx, 0, None)], np.nan)
    start, end = v[:-step], v[step:]
    years = (grid[step:] - grid[:-step]) / 365.0
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "price":
            r = np.where(start > 0, end / start - 1, np.nan)
        elif kind == "cash":
            r = start / 100 * years
        else:
            duration = TREASURY_DURATION if kind == "treasury" else HY_DURATION
            r = start / 100 * years - duration * (end - start) / 100
    out[:-step] = r
    return out


def tilt_figures(returns: np.ndarray, in_state: np.ndarray, step: int) -> dict:
    """Regime vs unconditional forward returns (percent), N, hit rate, t-statistic and the tilt they imply."""
    ok = np.isfinite(returns)
    cond, every = returns[ok & in_state], returns[ok]
    n = len(cond)
    figures = {"n_days": n, "n_days_unconditional": len(every),
               "mean_regime_pct": _pct(cond.mean()) if n else None,
               "mean_unconditional_pct": _pct(every.mean()) if len(every) else None,
               "hit_rate_regime": round(float((cond > 0).mean()), 3) if n else None,
               "std_regime_pct": _pct(cond.std(ddof=1)) if n > 1 else None, "t_stat": None}
    if n > 1 and n / step >= 2 and cond.std(ddof=1) > 0:
        t = (cond.mean() - every.mean()) / (cond.std(ddof=1) / np.sqrt(n / step))
        figures["t_stat"] = round(float(t), 2)
    t = figures["t_stat"]
    if n < MIN_N:
        tilt, why = "neutral", f"only {n} days in the regime with a forward return (fewer than {MIN_N})"
    elif t is None:
        tilt, why = "neutral", "the regime's forward returns do not vary: no t-statistic"
    elif t >= T_THRESHOLD:
        tilt, why = "overweight", f"t = {t} >= {T_THRESHOLD}"
    elif t <= -T_THRESHOLD:
        tilt, why = "underweight", f"t = {t} <= -{T_THRESHOLD}"
    else:
        tilt, why = "neutral", f"|t| = {abs(t)} < {T_THRESHOLD}"
    return {"tilt": tilt, "reason": why, **figures}


def _pct(x: float) -> float | None:
    return round(float(x) * 100, 3) if np.isfinite(x) else None


def tilts(frames: Frames, labels: pl.DataFrame, state: str, step: int = STEP_DAYS) -> dict:
    """Per asset class: overweight / neutral / underweight in `state` from the forward returns of the
    labelled days (every figure from the data in `frames`, which holds nothing after the clock)."""
    grid = day_numbers(labels)
    in_state = (labels["state"] == state).to_numpy()
    cash_id = TILT_ASSETS["cash"][0][0]
    cash = forward_returns(frames, cash_id, "cash", grid, step) if frames.get(cash_id) is not None else None
    out = {}
    for name, (candidates, kind) in TILT_ASSETS.items():
        series_id = next((s for s in candidates if frames.get(s) is not None), None)
        if series_id is None:
            out[name] = {"tilt": None, "series": list(candidates),
                         "reason": f"the warehouse holds no {' or '.join(candidates)} observations: no tilt"}
            continue
        returns, method = forward_returns(frames, series_id, kind, grid, step), RETURN_METHODS[kind]
        if kind in EXCESS_OF_CASH and cash is not None:
            returns, method = returns - cash, f"{method}, in excess of the {cash_id} bill carry over the same window"
        out[name] = {**tilt_figures(returns, in_state, step), "series": series_id, "horizon_trading_days": step,
                     "method": method}
    if "tilt" in out.get("cash", {}) and out["cash"]["tilt"] is not None:
        out["cash"] = {**out["cash"], **cash_tilt(out)}
    return out


def cash_tilt(classes: dict) -> dict:
    """Cash against the risky classes' tilts (CASH_RULE); the bill's own figures stay beside it."""
    risky = [c for name, c in classes.items() if name != "cash" and c.get("tilt") is not None]
    over = sum(c["tilt"] == "overweight" for c in risky)
    under = sum(c["tilt"] == "underweight" for c in risky)
    tilt = "overweight" if under > over else "underweight" if over > under else "neutral"
    return {"tilt": tilt, "reason": f"{under} risky classes underweight, {over} overweight, of {len(risky)} measured",
            "rule": CASH_RULE}


# ---- the product ---------------------------------------------------------------------------------------------

def regime_view(frames: Frames, labels: pl.DataFrame, today: date, step: int = STEP_DAYS) -> dict:
    """The `regime` product: today's classification, the empirical transitions between the stored daily labels,
    how long the current state tends to last and the asset-class tilts it implies. `labels` are the stored
    daily rows (LABEL_SCHEMA); only those dated on or before `today` are read."""
    labels = labels.filter(pl.col("date") <= today).sort("date")
    cut = DailyCutter(frames).at(today)
    current = classify(cut)
    states = labels["state"].to_list()
    state = current["state"]
    inputs = [s for s in REGIME_INPUTS if cut.get(s) is not None]
    transitions = transition_matrix(states, step)
    clock = frames.clock or datetime.now(UTC)
    return {
        "product": "regime", "as_of": today.isoformat(),
        "data_as_of": max(cut.last_date(s) for s in inputs).isoformat() if inputs else None,
        "generated_at": clock.isoformat(timespec="seconds"),
        "current": {"state": state, "probabilities": current["probabilities"], "scores": current["scores"],
                    "since": _run_start(labels, state, today).isoformat(), "rationale": current["rationale"],
                    "drivers": current["drivers"], "facts": current["facts"],
                    "missing_facts": current["missing_facts"]},
        "transitions": {**transitions, "from_current": transitions["probabilities"][state]},
        "expected_duration": expected_duration(states, state),
        "tilts": tilts(frames, labels, state, step) if labels.height else {},
        "history": _history_summary(labels),
        "methodology": {"classifier": RULES,
                        "labels": f"each trading day (dates of {', '.join(CALENDAR_SERIES)}) classified by the same "
                                  f"rules on the inputs dated on or before it, over the {LOOKBACK_DAYS} calendar "
                                  "days before it",
                        "transitions": f"counts of the state {step} labelled trading days later, per starting state",
                        "tilts": TILT_RULE},
        "data_sources": _sources(frames, today),
    }


def _run_start(labels: pl.DataFrame, state: str, today: date) -> date:
    """The first day of the run of `state` that reaches today (today itself when the last label differs)."""
    start = today
    for day, s in zip(reversed(labels["date"].to_list()), reversed(labels["state"].to_list())):
        if s != state:
            break
        start = day
    return start


def _history_summary(labels: pl.DataFrame) -> dict:
    if not labels.height:
        return {"first_day": None, "last_day": None, "n_days": 0, "days_per_state": dict.fromkeys(STATES, 0)}
    counts = dict(zip(*labels["state"].value_counts().to_dict(as_series=False).values()))
    return {"first_day": labels["date"][0].isoformat(), "last_day": labels["date"][-1].isoformat(),
            "n_days": labels.height, "days_per_state": {s: int(counts.get(s, 0)) for s in STATES}}


def _sources(frames: Frames, today: date) -> dict:
    ids = list(dict.fromkeys([*REGIME_INPUTS, *TILT_SERIES]))
    series = [{"id": s, "last_observation": frames.last_date(s).isoformat()}
              for s in ids if frames.get(s) is not None]
    return {"series": series, "missing": [s for s in ids if frames.get(s) is None]}
