import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, market, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import signal_composite as sc


def _parts(n=800):
    dates = bdays(n)
    rng = np.random.default_rng(4)
    return {"SP500": series(dates, random_walk(n, 4000, 0.01, seed=31, drift=0.0003)),
            "BAMLH0A0HYM2": series(dates, 4 + np.cumsum(rng.normal(0, 0.03, n))),
            "T10Y2Y": series(dates, 0.5 * np.sin(np.arange(n) / 90) + rng.normal(0, 0.05, n)),
            "VIXCLS": series(dates, random_walk(n, 18, 0.05, seed=32))}


def _hit(signal, fwd):
    ok = signal.notna() & fwd.notna() & (signal.abs() >= 0.05)
    s, f = signal[ok], fwd[ok]
    return round((np.sign(s) == np.sign(f)).mean() * 100, 1), int(ok.sum())


def _wilder_rsi(close: pd.Series, n: int = 14) -> pd.Series:
    """Wilder's RSI: average gain and loss seeded with the mean of the first n changes, then smoothed."""
    diff = close.diff()
    out = pd.Series(np.nan, index=close.index)
    gain, loss = diff.clip(lower=0), (-diff).clip(lower=0)
    g, ls = gain.iloc[1:n + 1].mean(), loss.iloc[1:n + 1].mean()
    for i in range(n, len(close)):
        if i > n:
            g, ls = (g * (n - 1) + gain.iloc[i]) / n, (ls * (n - 1) + loss.iloc[i]) / n
        out.iloc[i] = 100.0 if ls == 0 else 100 - 100 / (1 + g / ls)
    return out


def test_strategies_hit_rates_and_composite_match_pandas():
    parts = _parts()
    payload = sc.compute(make_frames(parts))
    d = payload["data"]
    close = pd.Series(parts["SP500"]["value"].to_numpy())
    fwd = close.shift(-21) / close - 1
    trend = ((close / close.rolling(200).mean() - 1) * 100 / 5).clip(-1, 1)
    t = d["strategies"]["trend_200d"]
    assert t["signal"] == pytest.approx(round(trend.iloc[-1], 2))
    assert (t["hit_rate_pct"], t["tested_days"]) == _hit(trend, fwd)
    mom = ((close.shift(21) / close.shift(252) - 1) * 100 / 20).clip(-1, 1)
    m = d["strategies"]["momentum_12_1"]
    assert (m["signal"] == pytest.approx(round(mom.iloc[-1], 2))
            and (m["hit_rate_pct"], m["tested_days"]) == _hit(mom, fwd))
    curve = pd.Series(parts["T10Y2Y"]["value"].to_numpy()).clip(-1, 1)
    c = d["strategies"]["curve_slope"]
    assert (c["hit_rate_pct"], c["tested_days"]) == _hit(curve, fwd)
    hy = pd.Series(parts["BAMLH0A0HYM2"]["value"].to_numpy())
    credit = (-(hy - hy.shift(63)) * 100 / 100).clip(-1, 1)
    assert d["strategies"]["credit_trend"]["signal"] == pytest.approx(round(credit.iloc[-1], 2))
    # composite: hit-rate-weighted mean of today's signals; agreement: share agreeing with its sign
    rows = d["strategies"].values()
    w = np.array([r["hit_rate_pct"] / 100 for r in rows])
    s = np.array([r["signal"] for r in rows])
    assert d["composite"] == pytest.approx(np.sum(w * s) / np.sum(w), abs=0.01)
    agree = np.mean([np.sign(x) == np.sign(d["composite"]) and abs(x) >= 0.05 for x in s]) * 100
    assert d["agreement_pct"] == pytest.approx(round(agree, 1))
    assert d["strategies_used"] == 6 and len(d["strategies"]) >= 5
    check_payload(payload)


def test_calm_uptrend_is_bullish_and_call_follows_threshold():
    payload = sc.compute(make_frames(market("calm", n=800)))
    d = payload["data"]
    assert d["strategies"]["trend_200d"]["signal"] == 1.0 and d["strategies"]["credit_trend"]["signal"] > 0
    sig = payload["signals"][0]
    expected = "bullish" if d["composite"] >= 0.2 else "bearish" if d["composite"] <= -0.2 else "neutral"
    assert sig["direction"] == expected == d["composite_call"]
    crisis = sc.compute(make_frames(market("crisis", n=800)))
    assert crisis["data"]["composite"] < d["composite"]
    assert crisis["data"]["strategies"]["trend_200d"]["signal"] == -1.0
    check_payload(payload)
    check_payload(crisis)


def test_only_sp500_and_short_history_degrade():
    parts = _parts()
    payload = sc.compute(make_frames({"SP500": parts["SP500"]}))
    d = payload["data"]
    assert {"credit_trend", "curve_slope", "vix_contrarian"} <= set(d["unavailable"])
    assert d["strategies_used"] == 3
    assert "missing inputs: VIXCLS, BAMLH0A0HYM2, T10Y2Y" in payload["summary"]
    # the three price-only strategies, recomputed, give the composite, the agreement and the confidence;
    # the three missing inputs are supporting ones (0.05 each) and the SP500-only confidence says so
    close = pd.Series(parts["SP500"]["value"].to_numpy())
    fwd = close.shift(-21) / close - 1
    signals = {"trend_200d": ((close / close.rolling(200).mean() - 1) * 100 / 5).clip(-1, 1),
               "momentum_12_1": ((close.shift(21) / close.shift(252) - 1) * 100 / 20).clip(-1, 1),
               "rsi_mean_reversion": ((50 - _wilder_rsi(close)) / 20).clip(-1, 1)}
    hits = {k: _hit(v, fwd) for k, v in signals.items()}
    assert {k: (r["hit_rate_pct"], r["tested_days"]) for k, r in d["strategies"].items()} == hits
    w = np.array([hits[k][0] / 100 for k in signals])
    s = np.array([v.iloc[-1] for v in signals.values()])
    composite = np.sum(w * s) / np.sum(w)
    agree = np.mean([abs(x) >= 0.05 and np.sign(x) == np.sign(composite) for x in s])
    assert d["composite"] == round(composite, 3) and d["agreement_pct"] == round(agree * 100, 1)
    undegraded = 0.25 + 0.35 * min(1, abs(composite)) + 0.3 * agree
    assert payload["signals"][0]["confidence"] == round(undegraded * (1 - 3 * 0.05), 2)
    check_payload(payload)
    short = sc.compute(make_frames({"SP500": series(bdays(120), random_walk(120, 4000, 0.01, seed=3))}))
    assert "trend_200d" in short["data"]["unavailable"] and "rsi_mean_reversion" in short["data"]["strategies"]
    check_payload(short)
    with pytest.raises(InsufficientData):
        sc.compute(make_frames({"SP500": series(bdays(30), np.linspace(100, 110, 30))}))
