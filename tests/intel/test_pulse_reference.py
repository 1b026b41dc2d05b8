"""The pulse against figures computed here with pandas, from the formulas intel/pulse.py documents (the asset
scores, COMPOSITE_METHOD) and the regime's methodology (intel/regime.py): on hand-built markets, and on replays
of the real history read straight from its CSVs (not through the replay provider)."""
from __future__ import annotations

import sys
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent / "modules"))
from builders import NOW, bdays, cdays, make_frames, random_walk, series, to_pandas  # noqa: E402
from regime_reference import STATES, before, composite, facts, probabilities, replayed, year  # noqa: E402

from intel.frames import Frames  # noqa: E402
from intel.providers.replay import ReplayProvider  # noqa: E402
from intel.pulse import PULSE_INPUTS, compute_pulse  # noqa: E402
from tests.history import history_dir  # noqa: E402


def pct(s, days):
    return (s.iloc[-1] / before(s, days) - 1) * 100


def bp(s, days):
    return (s.iloc[-1] - before(s, days)) * 100


def vs_sma200(s):
    return (s.iloc[-1] / s.rolling(200).mean().iloc[-1] - 1) * 100


def drawdown_1y(s):
    return (s.iloc[-1] / year(s).max() - 1) * 100


def clip(x):
    return float(np.clip(x, -1.0, 1.0))


def expected_signals(s: dict[str, pd.Series]) -> tuple[dict[str, tuple[float, dict]], float]:
    """{asset class: (score, key figures)} for the classes present, and the credit score."""
    out, hy = {}, s["BAMLH0A0HYM2"]
    spx = s["SP500"]
    equities = clip(np.mean([vs_sma200(spx) / 10, pct(spx, 30) / 5]))
    out["equities"] = (clip(equities - 0.5) if drawdown_1y(spx) < -10 else equities,
                       {"level": spx.iloc[-1], "change_1m_pct": pct(spx, 30), "vs_sma200_pct": vs_sma200(spx),
                        "drawdown_1y_pct": drawdown_1y(spx)})
    ten, two = s["DGS10"], s["DGS2"]
    out["bonds"] = (clip(-bp(ten, 30) / 30), {"yield_10y_pct": ten.iloc[-1], "change_1m_bp": bp(ten, 30),
                                              "slope_2s10s_bp": (ten.iloc[-1] - two.iloc[-1]) * 100})
    if "CBBTCUSD" in s:
        btc = s["CBBTCUSD"]
        out["crypto"] = (clip(np.mean([vs_sma200(btc) / 20, pct(btc, 30) / 15])),
                         {"btc_usd": btc.iloc[-1], "change_1m_pct": pct(btc, 30), "vs_sma200_pct": vs_sma200(btc),
                          "drawdown_1y_pct": drawdown_1y(btc)})
    vix = s["VIXCLS"]
    realized = np.log(spx).diff().iloc[-21:].std(ddof=1) * np.sqrt(252) * 100
    out["volatility"] = (clip(np.mean([(20 - vix.iloc[-1]) / 10, -pct(vix, 7) / 25])),
                         {"vix": vix.iloc[-1], "percentile_1y": (year(vix) <= vix.iloc[-1]).mean() * 100,
                          "change_1w_pct": pct(vix, 7), "sp500_realized_vol_21d_pct": realized})
    eur = s["DEXUSEU"]
    eur_fresh = (s["SP500"].index[-1] - eur.index[-1]).days <= 7  # a stale euro quote is left out
    if "DTWEXBGS" in s:
        dollar = pct(s["DTWEXBGS"], 30)
        figures = {"dollar_change_1m_pct": dollar, "broad_dollar_index": s["DTWEXBGS"].iloc[-1]}
        figures |= {"eurusd": eur.iloc[-1]} if eur_fresh else {}
    else:  # dollars per euro: the dollar moves by the inverse
        dollar = (1 / (1 + pct(eur, 30) / 100) - 1) * 100
        figures = {"dollar_change_1m_pct": dollar, "eurusd": eur.iloc[-1]}
    out["fx"] = (clip(dollar / 2), figures)
    return out, clip(np.mean([(4.5 - hy.iloc[-1]) / 2, -bp(hy, 30) / 50]))


def check(pulse: dict, s: dict[str, pd.Series], bands: list[tuple]) -> None:
    """`bands`: (fact, low, high, state, points), the methodology's band each fact falls in (strictly inside)."""
    signals, credit = expected_signals(s)
    for name, (score, figures) in signals.items():
        got = pulse["signals"][name]
        assert got["score"] == round(score, 3), name
        direction = "bullish" if score > 0.15 else "bearish" if score < -0.15 else "neutral"
        assert got["direction"] == direction and got["confidence"] == round(0.4 + 0.5 * abs(score), 2), name
        assert got["key_figures"] == {k: round(v, 4 if k == "eurusd" else 2) for k, v in figures.items()}, name
    found = facts(s)
    assert sorted(found) == sorted(b[0] for b in bands)
    scores = dict.fromkeys(STATES, 0.0)
    for fact, low, high, state, points in bands:
        assert low < found[fact] < high, (fact, found[fact])
        if state:  # None: the fact falls in no band that scores
            scores[state] += points
    shown = {k: round(float(v), 3) for k, v in probabilities(scores).items()}
    assert pulse["regime"]["probabilities"] == shown
    assert pulse["regime"]["state"] == max(shown, key=shown.get)
    # the composite, from the scores and probabilities as published (3 digits) and the credit score
    parts = {name: round(signals[name][0], 3) if name in signals else None
             for name in ("equities", "volatility", "crypto", "fx")}
    assert pulse["composite_score"] == round(composite({**parts, "credit": credit}, shown), 1)
    assert ("crypto" in signals) != bool(pulse["signals"]["crypto"].get("unavailable"))


def ramp(n: int, a: float, b: float, k: int) -> np.ndarray:
    """`a` for n - k values, then a straight line to `b` over the last k."""
    return np.concatenate([np.full(n - k, a), np.linspace(a, b, k)])


def hand_built(stress: bool) -> dict:
    n, days, rng = 320, cdays(450), np.random.default_rng(3)
    noise = lambda scale: rng.normal(0, scale, n)  # noqa: E731
    spx = random_walk(n, 4000, 0.008, 21, drift=0.001) * (ramp(n, 1.0, 0.7, 60) if stress else 1)
    parts = {"SP500": spx, "NASDAQCOM": spx * 4.1 * np.exp(noise(0.003)),
             "VIXCLS": (ramp(n, 15, 45, 30) if stress else ramp(n, 16, 22, 10)) + noise(0.3),
             "BAMLH0A0HYM2": (ramp(n, 4.0, 7.5, 30) if stress else ramp(n, 3.7, 4.2, 20)) + noise(0.02),
             "T10Y2Y": (0.5 if stress else -0.2) + noise(0.03), "DGS10": 4.0 + np.cumsum(noise(0.04)),
             "DGS2": 4.3 + np.cumsum(noise(0.04)), "DEXUSEU": ramp(n, 1.08, 1.10, 40) * np.exp(noise(0.002))}
    if not stress:  # under stress: no broad dollar index (the euro quote stands in) and no bitcoin
        # up 7% in the quarter, flat over the last month
        parts["DTWEXBGS"] = np.concatenate([ramp(n - 25, 100, 107, 45), np.full(25, 107)]) * np.exp(noise(0.002))
    frames = {sid: series(bdays(n), v) for sid, v in parts.items()}
    if not stress:
        frames["CBBTCUSD"] = series(days, random_walk(len(days), 60000, 0.02, 28))
    return frames


CALM_BANDS = [("sp500_vs_sma200_pct", 2, np.inf, "risk_on", 1.0), ("sp500_drawdown_1y_pct", -5, np.inf, "risk_on", 0.5),
              ("vix", 20, 30, "risk_off", 1.0), ("vix_percentile_1y", 90, np.inf, "risk_off", 0.5),
              ("hy_oas_pct", 3.5, 5, "neutral", 1.0), ("hy_oas_change_1m_bp", 40, 100, "risk_off", 0.5),
              ("curve_2s10s_bp", -np.inf, 0, "risk_off", 0.5), ("dollar_change_3m_pct", 5, np.inf, "risk_off", 0.5),
              ("vix_vs_20d_avg_pct", -np.inf, 50, None, 0), ("hy_oas_change_1w_bp", -np.inf, 50, None, 0)]
# the spread 60 bp wider in a week is a shock: the curve's calm (slow) neutral points count half
STRESS_BANDS = [("sp500_vs_sma200_pct", -np.inf, -15, "crisis", 1.0),
                ("sp500_drawdown_1y_pct", -np.inf, -20, "crisis", 1.0), ("vix", 40, np.inf, "crisis", 2.0),
                ("vix_percentile_1y", 90, np.inf, "risk_off", 0.5), ("hy_oas_pct", 7, np.inf, "crisis", 1.5),
                ("hy_oas_change_1m_bp", 100, np.inf, "crisis", 1.0), ("curve_2s10s_bp", 0, np.inf, "neutral", 0.125),
                ("vix_vs_20d_avg_pct", -np.inf, 50, None, 0), ("hy_oas_change_1w_bp", 50, 100, "risk_off", 1.0)]
NO_SHOCK = [("vix_vs_20d_avg_pct", -np.inf, 50, None, 0), ("hy_oas_change_1w_bp", -np.inf, 50, None, 0)]


@pytest.mark.parametrize("stress, bands", [(False, CALM_BANDS), (True, STRESS_BANDS)], ids=["calm", "stress"])
def test_hand_built_market(stress, bands):
    parts = hand_built(stress)
    pulse = compute_pulse(make_frames(parts), [])
    check(pulse, {sid: to_pandas(frame) for sid, frame in parts.items()}, bands)
    assert pulse["as_of"] == NOW.isoformat()


# the methodology's bands the facts of each date fall in (on 2020-03-16 two shock facts score, so the calm
# points of the slow facts, the curve's and the dollar's, count half)
REPLAY_BANDS = {
    "2020-03-16": [("sp500_vs_sma200_pct", -15, -2, "risk_off", 1.0),
                   ("sp500_drawdown_1y_pct", -20, -10, "risk_off", 1.0),
                   ("vix", 40, np.inf, "crisis", 2.0), ("vix_percentile_1y", 90, np.inf, "risk_off", 0.5),
                   ("hy_oas_pct", 7, np.inf, "crisis", 1.5), ("hy_oas_change_1m_bp", 100, np.inf, "crisis", 1.0),
                   ("curve_2s10s_bp", 0, np.inf, "neutral", 0.125), ("dollar_change_3m_pct", -3, 5, "neutral", 0.125),
                   ("vix_vs_20d_avg_pct", 50, 100, "risk_off", 1.5),
                   ("hy_oas_change_1w_bp", 100, np.inf, "crisis", 1.0)],
    # a rebound 12.8% below the 1-year high: the equities score takes the drawdown's 0.5 off an unclipped score
    "2020-05-19": [("sp500_vs_sma200_pct", -2, 2, "neutral", 0.5), ("sp500_drawdown_1y_pct", -20, -10, "risk_off", 1.0),
                   ("vix", 20, 30, "risk_off", 1.0), ("vix_percentile_1y", 20, 90, None, 0),
                   ("hy_oas_pct", 7, np.inf, "crisis", 1.5), ("hy_oas_change_1m_bp", -25, 40, None, 0),
                   ("curve_2s10s_bp", 0, np.inf, "neutral", 0.25),
                   ("dollar_change_3m_pct", 5, np.inf, "risk_off", 0.5), *NO_SHOCK],
    "2021-10-01": [("sp500_vs_sma200_pct", 2, np.inf, "risk_on", 1.0),
                   ("sp500_drawdown_1y_pct", -10, -5, "neutral", 0.5),
                   ("vix", 20, 30, "risk_off", 1.0), ("vix_percentile_1y", 20, 90, None, 0),
                   ("hy_oas_pct", -np.inf, 3.5, "risk_on", 1.0), ("hy_oas_change_1m_bp", -25, 40, None, 0),
                   ("curve_2s10s_bp", 0, np.inf, "neutral", 0.25), ("dollar_change_3m_pct", -3, 5, "neutral", 0.25),
                   *NO_SHOCK],
}


@pytest.fixture(scope="module")
def replay() -> ReplayProvider:
    return ReplayProvider(history_dir())


@pytest.mark.parametrize("day", sorted(REPLAY_BANDS))
def test_replay_of_the_real_history(replay, day):
    now = date.fromisoformat(day)
    # the lookback the pulse asset reads (intel/pulse.py: PULSE_LOOKBACK_DAYS)
    long = replay.observations(PULSE_INPUTS, now - timedelta(days=3700), now)
    pulse = compute_pulse(Frames.from_long(long, now, "replay"), [])
    # the series as known at `now`, read from the CSVs over the same lookback
    check(pulse, {sid: replayed(sid, now, 3700) for sid in PULSE_INPUTS}, REPLAY_BANDS[day])
