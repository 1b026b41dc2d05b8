"""The walk-forward back-test behind each signal's edge estimate, and the risk parameters from volatility.

Every decision day's score reads only what was published by that day (intel/signals/panel.py), the rules have no
parameter fitted to the history, and a decision counts only once its whole forward window has closed by the
clock: the statistics are what trading the rule since the data began would have shown, as of today.

edge = mean forward return over the horizon on the days the rule fired that way, minus the mean over every day
it was evaluated (the unconditional mean), signed so a positive edge means the rule's side paid (for a short,
the fired mean fell short of the unconditional one). Forward windows starting on consecutive days overlap, so
the t-statistic counts N / horizon effective observations: t = edge / (std of the fired returns /
sqrt(N / horizon)). Hit rate: the share of fired days whose forward return went the rule's way."""
from __future__ import annotations

import numpy as np

from intel.indicators import iso_day
from intel.regime_history import HY_DURATION, TREASURY_DURATION, forward_returns
from intel.signals.instruments import Instrument
from intel.signals.panel import Panel

MIN_EFFECTIVE = 2.0  # N / horizon below this: too few independent windows for a t-statistic
VOL_DAYS = 63  # decision days of one-day returns behind the volatility the stop and target scale with
STOP_SIGMAS, TARGET_SIGMAS = 1.0, 1.5  # multiples of the horizon's volatility (sigma_daily * sqrt(horizon))
SIDES = {"long": 1.0, "short": -1.0, "flat": 1.0}
DURATIONS = {"treasury": TREASURY_DURATION, "credit": HY_DURATION}


def fired(scores: np.ndarray, threshold: float, side: str) -> np.ndarray:
    if side == "long":
        return scores >= threshold
    if side == "short":
        return scores <= -threshold
    return np.abs(scores) < threshold


def edge_statistics(scores: np.ndarray, forward: np.ndarray, threshold: float, horizon: int, side: str,
                    grid: np.ndarray) -> dict:
    """The edge of one side of a rule (see the module's docstring); figures are fractional returns."""
    ok = np.isfinite(scores) & np.isfinite(forward)
    every = forward[ok]
    hits = ok & fired(np.where(ok, scores, 0.0), threshold, side)
    cond = forward[hits]
    n, sign = len(cond), SIDES[side]
    out = {"side": side, "n": n, "n_unconditional": len(every), "edge": None, "t_stat": None, "hit_rate": None,
           "mean_fired": _round(cond.mean()) if n else None,
           "mean_unconditional": _round(every.mean()) if len(every) else None,
           "first_decision": iso_day(grid[hits][0]) if n else None,
           "last_decision": iso_day(grid[hits][-1]) if n else None}
    if not n:
        return out
    edge = sign * (cond.mean() - every.mean())
    out["edge"] = _round(edge)
    if side != "flat":
        out["hit_rate"] = round(float((sign * cond > 0).mean()), 3)
    std = cond.std(ddof=1) if n > 1 else 0.0
    if n / horizon >= MIN_EFFECTIVE and std > 0:
        out["t_stat"] = round(float(edge / (std / np.sqrt(n / horizon))), 2)
    return out


def _round(x: float) -> float:
    return round(float(x), 6)


def instrument_returns(panel: Panel, instrument: Instrument, horizon: int) -> np.ndarray:
    """Each decision day's return from that day's close to the close `horizon` decision days later (NaN
    where the window has not closed by the clock)."""
    return forward_returns(panel.frames, instrument.id, instrument.kind, panel.grid, horizon)


def risk_parameters(panel: Panel, instrument: Instrument, horizon: int, side: str) -> dict:
    """A stop and a target from the instrument's recent volatility, as returns and as levels of the series."""
    daily = instrument_returns(panel, instrument, 1)
    recent = daily[np.isfinite(daily)][-VOL_DAYS:]
    if len(recent) < VOL_DAYS // 2:
        return {"max_holding_trading_days": horizon, "stop_return": None, "target_return": None,
                "note": f"fewer than {VOL_DAYS // 2} recent daily returns: no volatility to scale with"}
    sigma = float(recent.std(ddof=1)) * np.sqrt(horizon)
    stop, target = STOP_SIGMAS * sigma, TARGET_SIGMAS * sigma
    out = {"max_holding_trading_days": horizon, "horizon_volatility": _round(sigma),
           "stop_return": _round(-stop), "target_return": _round(target),
           "method": f"stop {STOP_SIGMAS} and target {TARGET_SIGMAS} times the horizon's volatility: the standard "
                     f"deviation of the last {len(recent)} one-day returns times sqrt({horizon}); {instrument.kind} "
                     f"returns ({instrument.return_method})"}
    level = panel.frames.get(instrument.id)["value"][-1]
    out["reference_level"] = float(level)
    if side in ("long", "short"):
        out["stop_level"], out["target_level"] = (_level(instrument, level, -stop, side),
                                                  _level(instrument, level, target, side))
    return out


def _level(instrument: Instrument, level: float, trade_return: float, side: str) -> float:
    """The series' level at which the position has made `trade_return` (carry aside for yields and spreads)."""
    r = trade_return * SIDES[side]  # the instrument's own return that gives the trade this return
    if instrument.kind == "price":
        return round(level * (1 + r), 4)
    return round(level - r * 100 / DURATIONS[instrument.kind], 4)  # a bond gains as its yield or spread falls
