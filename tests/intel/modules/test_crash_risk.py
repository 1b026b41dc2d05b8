import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, market, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import crash_risk as cr

SECTOR_IDS = ("XLB", "XLE", "XLF", "XLK", "XLU")


def _parts(n=900):
    dates = bdays(n)
    rng = np.random.default_rng(7)
    shock = np.zeros(n)
    vix, hy = 15 + rng.normal(0, 1, n), 3.5 + rng.normal(0, 0.05, n)
    for start in (350, 650):  # stress builds, then equities fall 20% over a month
        vix[start - 20:start + 30] += np.linspace(0, 20, 50)
        hy[start - 20:start + 30] += np.linspace(0, 2.5, 50)
        shock[start:start + 25] = np.log(0.8) / 25
    spx = 4000 * np.exp(np.cumsum(rng.normal(0.0004, 0.008, n) + shock))
    parts = {"SP500": series(dates, spx), "VIXCLS": series(dates, vix), "BAMLH0A0HYM2": series(dates, hy),
             "T10Y2Y": series(dates, 0.3 * np.sin(np.arange(n) / 70))}
    for k, sid in enumerate(SECTOR_IDS):
        parts[sid] = series(dates, spx / 40 * random_walk(n, 1, 0.006, seed=50 + k))
    return parts


def _reference(parts):
    """Composite history and back-test with pandas, independently of the module."""
    col = {k: pd.Series(v["value"].to_numpy()) for k, v in parts.items()}
    z = lambda s: ((s - s.rolling(252, min_periods=63).mean()) / s.rolling(252, min_periods=63).std()).clip(-3, 3)  # noqa
    below = pd.concat([(col[s] < col[s].rolling(50).mean()).where(col[s].rolling(50).mean().notna())
                       for s in SECTOR_IDS], axis=1).astype(float)
    share = below.mean(axis=1) * 100
    comps = pd.DataFrame({"vix": z(col["VIXCLS"]), "hy": z(col["BAMLH0A0HYM2"]),
                          "breadth": ((share - 50) / 25).clip(-3, 3), "curve": (-col["T10Y2Y"] / 0.5).clip(-3, 3)})
    composite = comps.mean(axis=1).where(comps.notna().sum(axis=1) >= 2)
    close = col["SP500"].to_numpy()
    n = len(close)
    fall = pd.Series([close[t + 1:t + 64].min() / close[t] - 1 if t + 63 < n else np.nan for t in range(n)])
    ok = composite.notna() & fall.notna()
    crash, warn = (fall[ok] <= -0.10), (composite[ok] >= 1.0)
    return comps, share, composite, crash, warn


def test_components_composite_and_backtest_match_pandas():
    parts = _parts()
    payload = cr.compute(make_frames(parts))
    d = payload["data"]
    comps, share, composite, crash, warn = _reference(parts)
    assert d["sectors_below_sma50_pct"] == pytest.approx(round(share.iloc[-1], 1))
    assert d["components"]["vix_zscore_1y"]["value"] == pytest.approx(round(comps.vix.iloc[-1], 2))
    assert d["components"]["breadth_weakness"]["value"] == pytest.approx(round(comps.breadth.iloc[-1], 2))
    assert d["composite"] == pytest.approx(round(composite.iloc[-1], 2))
    b = d["backtest"]
    assert b["tested_days"] == len(crash) and b["warning_days"] == int(warn.sum()) > 0
    assert b["base_rate_pct"] == pytest.approx(round(crash.mean() * 100, 1))
    hits = int((warn & crash).sum())
    assert b["hit_rate_pct"] == pytest.approx(round(hits / warn.sum() * 100, 1))
    assert b["false_alarm_rate_pct"] == pytest.approx(round(100 - hits / warn.sum() * 100, 1), abs=0.11)
    run_id = (crash != crash.shift()).cumsum()
    episodes = pd.DataFrame({"crash": crash, "warn": warn, "run": run_id})[crash].groupby("run")["warn"].any()
    assert b["crash_episodes"] == len(episodes) >= 2 and b["crash_episodes_warned"] == int(episodes.sum()) >= 2
    check_payload(payload)


def _crisis_with_sectors():
    parts = market("crisis", n=800)
    spx = parts["SP500"]["value"].to_numpy()
    for k, sid in enumerate(SECTOR_IDS):
        parts[sid] = series(parts["SP500"]["date"], spx / 40 * random_walk(800, 1, 0.004, seed=60 + k))
    return parts


def test_crisis_gives_a_bearish_critical_warning():
    payload = cr.compute(make_frames(_crisis_with_sectors()))
    d, sig = payload["data"], payload["signals"][0]
    assert d["warning"] and d["level"] in ("warning", "severe")
    assert d["sectors_below_sma50_pct"] == 100.0
    assert sig["direction"] == "bearish" and sig["urgency"] in ("high", "critical")
    calm = cr.compute(make_frames(market("calm", n=800)))
    assert not calm["data"]["warning"] and calm["signals"][0]["direction"] != "bearish"
    check_payload(payload)
    check_payload(calm)


def test_missing_sp500_and_curve_degrade():
    parts = _parts()
    full = cr.compute(make_frames(parts))
    del parts["SP500"], parts["T10Y2Y"]
    payload = cr.compute(make_frames(parts))
    d = payload["data"]
    assert {"backtest", "curve_inversion"} <= set(d["unavailable"]) and "backtest" not in d
    assert d["components_used"] == 3
    assert "missing inputs" in payload["summary"] and "SP500" in payload["data_sources"]["missing"]
    assert payload["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(payload)
    with pytest.raises(InsufficientData):
        cr.compute(make_frames({"SP500": parts["XLB"]}))
