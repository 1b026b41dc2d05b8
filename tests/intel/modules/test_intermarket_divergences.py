from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, random_walk, series, to_pandas

from intel.envelope import InsufficientData
from intel.modules import intermarket_divergences as imd

N = 1500
EPISODES = (300, 700, 1100)


def _parts(seed: int = 21, final_divergence: bool = True) -> dict:
    rng = np.random.default_rng(seed)
    spx_ret = rng.normal(0.0002, 0.004, N)
    hy_chg = rng.normal(0, 0.01, N)
    for p in EPISODES:  # a short divergence (stocks up, spreads out), then a slide
        spx_ret[p:p + 10] += 0.004
        hy_chg[p:p + 10] += 0.08
        spx_ret[p + 10:p + 40] -= 0.006
    if final_divergence:
        spx_ret[-22:] += 0.004
        hy_chg[-22:] += 0.04
    dates = bdays(N)
    return {"SP500": series(dates, 4000 * np.exp(np.cumsum(spx_ret))),
            "BAMLH0A0HYM2": series(dates, 4 + np.cumsum(hy_chg))}


def _ref_moves(frame, kind):
    """pandas: change against the last value on or before 30 calendar days earlier."""
    s = to_pandas(frame)
    base = pd.Series([s.asof(t - timedelta(days=30)) for t in s.index], index=s.index)
    m = (s / base - 1) * 100 if kind == "pct" else (s - base) * 100
    recent = m[m.index > m.index[-1] - timedelta(days=365 * 5)].dropna()
    return m, np.sqrt((recent ** 2).mean())


def test_bearish_credit_divergence_strength_since_and_backtest():
    parts = _parts()
    payload = imd.compute(make_frames(parts))
    d = payload["data"]
    credit = d["pairs"]["credit"]
    m_eq, sc_eq = _ref_moves(parts["SP500"], "pct")
    m_hy, sc_hy = _ref_moves(parts["BAMLH0A0HYM2"], "bp")
    z_eq, z_hy = m_eq / sc_eq, -m_hy / sc_hy
    assert d["equities"]["zscore_1m"] == pytest.approx(round(z_eq.iloc[-1], 2), abs=1e-9)
    assert credit["zscore_1m"] == pytest.approx(round(z_hy.iloc[-1], 2), abs=1e-9)
    assert credit["move_1m_bp"] == pytest.approx(round(m_hy.iloc[-1], 2), abs=1e-9)
    assert credit["divergence_1m"] == "bearish"
    assert credit["strength_1m"] == pytest.approx(round(min(abs(z_eq.iloc[-1]), abs(z_hy.iloc[-1])), 2), abs=1e-9)
    diverging = (np.minimum(z_eq.abs(), z_hy.abs()) >= 0.5) & (z_eq > 0) & (z_hy < 0)
    start = len(diverging) - 1
    while diverging.iloc[start - 1]:
        start -= 1
    assert credit["since"] == diverging.index[start].date().isoformat()
    bt = credit["backtest_1m"]["bearish"]
    assert bt["events_with_outcome"] >= len(EPISODES)
    assert bt["forward_1m_return_avg_pct"] < credit["backtest_1m"]["all_days_forward_1m_return_avg_pct"] - 1
    top = d["divergences"][0]
    assert top["pair"] == "credit" and top["description"] == "equities up while high-yield spreads widen"
    sig = next(s for s in payload["signals"] if s["name"] == "credit_1m")
    assert sig["direction"] == "bearish" and sig["urgency"] in ("medium", "high")
    check_payload(payload)


def test_several_bearish_divergences_make_the_overall_signal_bearish():
    parts = _parts()
    dates = parts["SP500"]["date"].to_list()
    rng = np.random.default_rng(3)
    vix_chg = rng.normal(0, 0.02, N)
    vix_chg[-22:] += 0.03  # the VIX climbs while stocks rally
    usd_chg = rng.normal(0, 0.002, N)
    usd_chg[-22:] += 0.003  # the dollar surges
    parts["VIXCLS"] = series(dates, 15 * np.exp(np.cumsum(vix_chg)))
    parts["DTWEXBGS"] = series(dates, 110 * np.exp(np.cumsum(usd_chg)))
    payload = imd.compute(make_frames(parts))
    d = payload["data"]
    assert {"credit", "volatility", "dollar"} <= {x["pair"] for x in d["divergences"] if x["type"] == "bearish"}
    overall = payload["signals"][0]
    assert overall["name"] == "intermarket_confirmation" and overall["direction"] == "bearish"
    assert overall["urgency"] == "high"
    check_payload(payload)


def test_no_divergence_when_markets_confirm():
    parts = _parts(final_divergence=False)
    n = len(parts["SP500"])
    dates = parts["SP500"]["date"].to_list()
    spx = parts["SP500"]["value"].to_numpy() * np.concatenate([np.ones(n - 22), np.linspace(1, 1.08, 22)])
    hy = parts["BAMLH0A0HYM2"]["value"].to_numpy() - np.concatenate([np.zeros(n - 22), np.linspace(0, 0.8, 22)])
    payload = imd.compute(make_frames({"SP500": series(dates, spx), "BAMLH0A0HYM2": series(dates, hy)}))
    assert payload["data"]["pairs"]["credit"]["divergence_1m"] == "none"
    assert payload["signals"][0]["direction"] == "neutral"
    check_payload(payload)


def test_missing_inputs_and_short_history():
    parts = _parts()
    payload = imd.compute(make_frames(parts))
    assert {"volatility", "yields", "bitcoin", "dollar"} <= set(payload["data"]["unavailable"])
    assert "missing inputs" in payload["summary"]
    with pytest.raises(InsufficientData):
        imd.compute(make_frames({"BAMLH0A0HYM2": parts["BAMLH0A0HYM2"]}))
    with pytest.raises(InsufficientData):
        imd.compute(make_frames({"SP500": parts["SP500"]}))
    with pytest.raises(InsufficientData):
        imd.compute(make_frames({k: v.tail(10) for k, v in parts.items()}))
    short = imd.compute(make_frames({k: v.tail(60) for k, v in parts.items()}))
    assert short["data"]["pairs"]["credit"]["divergence_3m"] is None and "credit.3m" in short["data"]["unavailable"]
    check_payload(short)
    btc = random_walk(60, 30000, 0.03, 1)
    with_btc = imd.compute(make_frames({**parts, "CBBTCUSD": series(bdays(60), btc)}))
    assert "bitcoin" in with_btc["data"]["pairs"]
    check_payload(with_btc)
