"""The regime rules (intel/regime.py's METHODOLOGY and rule texts) and the composite score (intel/pulse.py's
COMPOSITE_METHOD) recomputed with pandas from the real history's CSVs, for the replay tests of market_regime,
market_intelligence and the pulse (tests/intel/test_pulse_reference.py). Nothing here calls the code under
test: the bands are written out from the rules' own words ("VIX at 45, a crisis level (40 or more)")."""
from __future__ import annotations

import operator
from datetime import date, timedelta

import numpy as np
import pandas as pd

from intel.catalog import release_lag
from tests.history import history_dir

STATES = ("risk_on", "neutral", "risk_off", "crisis")
# fact: its bands in order, (test, threshold, state, points); the first that holds adds its points to its
# state ("else": always holds); a fact may have no band that holds
BANDS = {
    "sp500_vs_sma200_pct": [("<", -15, "crisis", 1.0), ("<", -2, "risk_off", 1.0), ("<=", 2, "neutral", 0.5),
                            ("else", 0, "risk_on", 1.0)],
    "sp500_drawdown_1y_pct": [("<=", -20, "crisis", 1.0), ("<=", -10, "risk_off", 1.0), ("<=", -5, "neutral", 0.5),
                              ("else", 0, "risk_on", 0.5)],
    "vix": [(">=", 40, "crisis", 2.0), (">=", 30, "risk_off", 1.5), (">=", 20, "risk_off", 1.0),
            (">=", 15, "neutral", 1.0), ("else", 0, "risk_on", 1.0)],
    "vix_percentile_1y": [(">=", 90, "risk_off", 0.5), ("<=", 20, "risk_on", 0.5)],
    "hy_oas_pct": [(">=", 7, "crisis", 1.5), (">=", 5, "risk_off", 1.0), (">=", 3.5, "neutral", 1.0),
                   ("else", 0, "risk_on", 1.0)],
    "hy_oas_change_1m_bp": [(">", 100, "crisis", 1.0), (">", 40, "risk_off", 0.5), ("<", -25, "risk_on", 0.5)],
    # the shock facts: "a VIX at 20 or more and 50% (100%) above the average of its previous 20 closes", "the
    # high-yield spread more than 50 bp (100 bp) wider in a week"
    "vix_vs_20d_avg_pct": [(">=", 100, "crisis", 1.5), (">=", 50, "risk_off", 1.5)],
    "hy_oas_change_1w_bp": [(">", 100, "crisis", 1.0), (">", 50, "risk_off", 1.0)],
    # inverted only where it shows below zero at 2 decimals ("flat (0 bp)" is neutral)
    "curve_2s10s_bp": [("<", -0.005, "risk_off", 0.5), ("else", 0, "neutral", 0.25)],
    "dollar_change_3m_pct": [(">", 5, "risk_off", 0.5), ("<", -3, "risk_on", 0.5), ("else", 0, "neutral", 0.25)],
}
SHOCKS = ("vix_vs_20d_avg_pct", "hy_oas_change_1w_bp")
# "while a shock fact scores, the risk_on and neutral points of the slow facts count half"
SLOW = ("sp500_vs_sma200_pct", "sp500_drawdown_1y_pct", "hy_oas_pct", "curve_2s10s_bp", "dollar_change_3m_pct")
TESTS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "else": lambda v, t: True}
COMPOSITE_WEIGHTS = {"equities": 0.3, "volatility": 0.2, "credit": 0.2, "crypto": 0.1, "fx": 0.1, "regime": 0.1}


def replayed(series_id: str, day: date, lookback_days: int) -> pd.Series | None:
    """The series as a replay at `day` hands it out: the observations of the lookback already published then
    (dated at least the catalog's release lag before `day`)."""
    path = history_dir() / f"{series_id}.csv"
    if not path.exists():
        return None
    s = pd.read_csv(path, parse_dates=["date"], na_values=".").dropna().set_index("date")["value"].astype(float)
    day = pd.Timestamp(day)
    s = s[(s.index >= day - timedelta(days=lookback_days)) & (s.index + timedelta(days=release_lag(series_id)) <= day)]
    return s if len(s) else None


def before(s: pd.Series, days: int) -> float:
    """The value on or before `days` calendar days before the last observation."""
    return float(s[s.index <= s.index[-1] - timedelta(days=days)].iloc[-1])


def year(s: pd.Series) -> pd.Series:
    return s[s.index > s.index[-1] - timedelta(days=365)]


def facts(h: dict[str, pd.Series | None]) -> dict[str, float]:
    """The facts the rules score, from the series in `h` (absent ones give no fact)."""
    out = {}
    spx, vix, hy, curve, usd = (h.get(k) for k in ("SP500", "VIXCLS", "BAMLH0A0HYM2", "T10Y2Y", "DTWEXBGS"))
    if spx is not None and len(spx) >= 200:
        out["sp500_vs_sma200_pct"] = (spx.iloc[-1] / spx.iloc[-200:].mean() - 1) * 100
        out["sp500_drawdown_1y_pct"] = (spx.iloc[-1] / year(spx).max() - 1) * 100
    if vix is not None:
        out["vix"] = vix.iloc[-1]
        out["vix_percentile_1y"] = (year(vix) <= vix.iloc[-1]).mean() * 100
        if len(vix) > 20:
            out["vix_vs_20d_avg_pct"] = (vix.iloc[-1] / vix.iloc[-21:-1].mean() - 1) * 100
    if hy is not None:
        out["hy_oas_pct"] = hy.iloc[-1]
        out["hy_oas_change_1m_bp"] = (hy.iloc[-1] - before(hy, 30)) * 100
        out["hy_oas_change_1w_bp"] = (hy.iloc[-1] - before(hy, 7)) * 100
    if curve is not None:  # the real history has T10Y2Y wherever it has DGS10 and DGS2
        out["curve_2s10s_bp"] = curve.iloc[-1] * 100
    if usd is not None:
        out["dollar_change_3m_pct"] = (usd.iloc[-1] / before(usd, 91) - 1) * 100
    return out


def scores(f: dict[str, float]) -> dict[str, float]:
    """Each state's points from fresh inputs (the replay tests check none is stale)."""
    out = dict.fromkeys(STATES, 0.0)
    fired = {}
    for key, bands in BANDS.items():
        if key in f and not (key == "vix_vs_20d_avg_pct" and f["vix"] < 20):  # a jump counts from a VIX of 20
            state, points = next(((s, p) for test, t, s, p in bands if TESTS[test](f[key], t)), (None, 0.0))
            if state:
                fired[key] = (state, points)
    shock = any(key in SHOCKS for key in fired)  # every shock band scores risk_off or crisis
    for key, (state, points) in fired.items():
        calm = state in ("risk_on", "neutral")
        out[state] += points * (0.5 if shock and key in SLOW and calm else 1.0)
    return out


def probabilities(s: dict[str, float]) -> dict[str, float]:
    e = {k: np.exp(v) for k, v in s.items()}
    return {k: v / sum(e.values()) for k, v in e.items()}


def _trend_score(s: pd.Series, sma_scale: float, move_scale: float) -> float:
    vs = (s.iloc[-1] / s.iloc[-200:].mean() - 1) * 100 if len(s) >= 200 else 0.0
    return float(np.clip(np.mean([vs / sma_scale, (s.iloc[-1] / before(s, 30) - 1) * 100 / move_scale]), -1, 1))


def asset_scores(h: dict[str, pd.Series | None]) -> dict[str, float | None]:
    """COMPOSITE_METHOD's risk-oriented parts in -1..+1, each as the payload shows it (3 decimals)."""
    eq = h.get("SP500") if h.get("SP500") is not None else h.get("NASDAQCOM")
    vix, hy, btc, usd = (h.get(k) for k in ("VIXCLS", "BAMLH0A0HYM2", "CBBTCUSD", "DTWEXBGS"))
    out = dict.fromkeys(("equities", "volatility", "credit", "crypto", "fx"))
    if eq is not None:  # a drawdown of more than 10% from the 1-year high costs half a point
        penalty = 0.5 if (eq.iloc[-1] / year(eq).max() - 1) * 100 < -10 else 0.0
        out["equities"] = round(float(np.clip(_trend_score(eq, 10, 5) - penalty, -1, 1)), 3)
    if vix is not None:
        week = (vix.iloc[-1] / before(vix, 7) - 1) * 100
        out["volatility"] = round(float(np.clip(np.mean([(20 - vix.iloc[-1]) / 10, -week / 25]), -1, 1)), 3)
    if hy is not None:  # not rounded: the composite reads the spread, not a published score
        change_bp = (hy.iloc[-1] - before(hy, 30)) * 100
        out["credit"] = float(np.clip(np.mean([(4.5 - hy.iloc[-1]) / 2, -change_bp / 50]), -1, 1))
    if btc is not None:
        out["crypto"] = round(_trend_score(btc, 20, 15), 3)
    if usd is not None:
        out["fx"] = round(float(np.clip((usd.iloc[-1] / before(usd, 30) - 1) * 100 / 2, -1, 1)), 3)
    return out


def composite(parts: dict[str, float | None], probs: dict[str, float]) -> float:
    """100 x the weighted mean of the parts present; the dollar counts inverted; the regime's part is
    P(risk_on) - P(risk_off) - P(crisis) of the probabilities as shown (3 decimals)."""
    p = {k: round(v, 3) for k, v in probs.items()}
    parts = {**parts, "fx": None if parts["fx"] is None else -parts["fx"],
             "regime": p["risk_on"] - p["risk_off"] - p["crisis"]}
    present = {k: v for k, v in parts.items() if v is not None}
    return 100 * sum(COMPOSITE_WEIGHTS[k] * v for k, v in present.items()) / sum(COMPOSITE_WEIGHTS[k] for k in present)
