import math
from datetime import timedelta

import numpy as np
import pytest
from builders import bdays, cdays, check_payload, make_frames, series, to_pandas

from intel.envelope import InsufficientData
from intel.modules import asset_class_momentum as acm

N = 600


def _parts(drifts: dict, seed: int = 4) -> dict:
    """Prices with a daily drift per asset; bonds and credit from yields and spreads moving linearly."""
    rng = np.random.default_rng(seed)
    dates, days = bdays(N), cdays(int(N * 1.45))
    walk = lambda n, d, v: 100 * np.exp(np.cumsum(rng.normal(d, v, n)))  # noqa: E731
    return {"SP500": series(dates, 40 * walk(N, drifts.get("equities", 0.0004), 0.01)),
            "DTWEXBGS": series(dates, walk(N, drifts.get("dollar", 0.0), 0.003)),
            "DCOILWTICO": series(dates, 0.7 * walk(N, drifts.get("oil", 0.0), 0.02)),
            "CBBTCUSD": series(days, 300 * walk(len(days), drifts.get("bitcoin", 0.001), 0.03)),
            "DGS10": series(dates, 4 + np.cumsum(rng.normal(drifts.get("yield", 0.0), 0.04, N))),
            "BAMLH0A0HYM2": series(dates,
                                   np.clip(4 + np.cumsum(rng.normal(drifts.get("spread", 0.0), 0.03, N)), 1, None))}


def _ref_stats(frame, kind="price"):
    s = to_pandas(frame)
    if kind == "bond":  # carry + par-bond duration x yield change
        prev = s.shift(1) / 100
        dur = (1 - (1 + prev / 2) ** -20) / prev
        s = 100 * (1 + (prev * s.index.to_series().diff().dt.days / 365 - dur * s.diff() / 100).fillna(0)).cumprod()
    last = s.index[-1]
    at = lambda days: s[s.index <= last - timedelta(days=days)].iloc[-1]  # noqa: E731
    rets = {h: (s.iloc[-1] / at(d) - 1) * 100 for h, d in (("1m", 30), ("3m", 91), ("6m", 182), ("12m", 365))}
    rets["12_1"] = (at(30) / at(365) - 1) * 100
    year = s[s.index >= s[s.index <= last - timedelta(days=365)].index[-1]]
    daily = year.pct_change().dropna()
    vol = daily.std() * math.sqrt(len(daily)) * 100
    score = np.mean([rets["3m"] / (vol * math.sqrt(0.25)), rets["6m"] / (vol * math.sqrt(0.5)),
                     rets["12_1"] / (vol * math.sqrt(11 / 12))])
    return rets, vol, score


def test_returns_volatility_and_scores_match_pandas():
    parts = _parts({})
    payload = acm.compute(make_frames(parts))
    assets = payload["data"]["assets"]
    for name, sid, kind in (("equities", "SP500", "price"), ("bitcoin", "CBBTCUSD", "price"),
                            ("bonds", "DGS10", "bond")):
        rets, vol, score = _ref_stats(parts[sid], kind)
        for h, value in rets.items():
            assert assets[name][f"return_{h}_pct"] == pytest.approx(round(value, 2), abs=1e-9), (name, h)
        assert assets[name]["volatility_1y_pct"] == pytest.approx(round(vol, 2), abs=1e-9)
        assert assets[name]["momentum_score"] == pytest.approx(round(score, 3), abs=1e-9)
        assert assets[name]["ts_signal"] == ("long" if rets["12m"] > 0 else "short")
    ranking = payload["data"]["ranking"]
    scores = [assets[n]["momentum_score"] for n in ranking]
    assert scores == sorted(scores, reverse=True) and len(ranking) == 6
    assert [assets[n]["rank"] for n in ranking] == list(range(1, 7))
    check_payload(payload)


def test_credit_index_earns_spread_and_loses_duration_on_widening():
    dates = bdays(400)
    flat = acm.compute(make_frames({"BAMLH0A0HYM2": series(dates, np.full(400, 5.0))}))
    assert flat["data"]["assets"]["credit"]["return_12m_pct"] == pytest.approx((math.exp(0.05) - 1) * 100, abs=0.03)
    widening = acm.compute(make_frames({"BAMLH0A0HYM2": series(dates, np.linspace(3, 6, 400))}))
    assert widening["data"]["assets"]["credit"]["ts_signal"] == "short"  # 4y x ~2.7 points of widening > carry


def test_all_risk_assets_falling_is_bearish_and_a_rally_is_bullish():
    bear = acm.compute(make_frames(_parts({"equities": -0.002, "oil": -0.003, "bitcoin": -0.004, "spread": 0.01,
                                           "yield": -0.01, "dollar": 0.001})))
    d = bear["data"]
    assert d["risk_assets_long_count"] == 0 and d["leader"] in ("bonds", "dollar")
    breadth = bear["signals"][0]
    assert breadth["name"] == "trend_breadth" and breadth["direction"] == "bearish" and breadth["urgency"] == "high"
    assert bear["signals"][1]["direction"] == "bearish"  # defensive leadership
    bull = acm.compute(make_frames(_parts({"equities": 0.002, "oil": 0.002, "bitcoin": 0.004, "spread": -0.005})))
    assert bull["signals"][0]["direction"] == "bullish" and bull["data"]["risk_assets_long_count"] == 4
    check_payload(bear)
    check_payload(bull)


def test_missing_and_short_series_degrade():
    parts = _parts({})
    full = acm.compute(make_frames(parts))
    fewer = acm.compute(make_frames({k: v for k, v in parts.items() if k != "CBBTCUSD"}))
    assert "bitcoin" in fewer["data"]["unavailable"] and "CBBTCUSD" in fewer["data_sources"]["missing"]
    assert fewer["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    assert "missing inputs: CBBTCUSD" in fewer["summary"]
    check_payload(fewer)
    short = acm.compute(make_frames({k: v.tail(150) for k, v in parts.items()}))
    assert short["data"]["assets"]["equities"]["ts_signal"] is None
    assert short["data"]["assets"]["equities"]["return_3m_pct"] is not None
    assert "equities.ts_signal" in short["data"]["unavailable"]
    check_payload(short)
    with pytest.raises(InsufficientData):
        acm.compute(make_frames({k: v.tail(10) for k, v in parts.items()}))
