import math
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, market, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import tail_risk


def test_expected_shortfall_skew_and_var_match_pandas():
    dates = bdays(1500)
    spx = random_walk(1500, 3000, 0.011, seed=41)
    payload = tail_risk.compute(make_frames({"SP500": series(dates, spx)}))
    d = payload["data"]
    r = pd.Series(spx, index=pd.DatetimeIndex(dates)).pct_change().dropna() * 100
    for label, days in (("1y", 365), ("10y", 3653)):
        w = r[r.index > pd.Timestamp(NOW - timedelta(days=days))]
        block = d[f"window_{label}"]
        assert block["observations"] == len(w) and block["sample_start"] == w.index[0].date().isoformat()
        for level, tail in ((95, 0.05), (99, 0.01)):
            k = max(1, math.ceil(tail * len(w)))
            worst = w.nsmallest(k)
            assert block[f"es_{level}_1d_pct"] == pytest.approx(round(worst.mean(), 3))
            assert block[f"var_{level}_1d_pct"] == pytest.approx(round(worst.iloc[-1], 3))
        n = len(w)  # pandas gives the adjusted G1; the module reports the moment coefficient g1
        g1 = w.skew() * (n - 2) / math.sqrt(n * (n - 1))
        assert block["skewness"] == pytest.approx(round(g1, 3))
        down = math.sqrt((w.clip(upper=0) ** 2).mean())
        assert block["downside_deviation_pct"] == pytest.approx(round(down, 3))
    assert d["es_95_ratio_1y_to_10y"] == pytest.approx(
        round(d["window_1y"]["es_95_1d_pct"] / d["window_10y"]["es_95_1d_pct"], 2))
    check_payload(payload)


def test_a_single_crash_day_is_a_down_jump():
    dates = bdays(400)
    rng = np.random.default_rng(3)
    rets = rng.normal(0.0003, 0.005, 399)
    rets[-30] = -0.08  # sixteen standard deviations of the sessions before it
    spx = 3000 * np.concatenate([[1.0], np.cumprod(1 + rets)])
    payload = tail_risk.compute(make_frames({"SP500": series(dates, spx)}))
    jumps = payload["data"]["window_1y"]["jumps"]
    z = pd.Series(rets * 100)
    prior_std = z.rolling(63).std().shift(1)
    expected = ((z / prior_std).abs() > 3)[z.index >= len(z) - jumps["observations"]]
    assert jumps["down_jumps"] >= 1 and jumps["down_jumps"] + jumps["up_jumps"] == int(expected.sum())
    # after the crash the prior 63 sessions include it, so no later day counts as a jump
    assert jumps["last_jump_date"] == dates[-30].isoformat() and jumps["last_jump_return_pct"] == -8.0
    assert jumps["last_jump_sigmas"] == pytest.approx(round(-8.0 / prior_std.iloc[-30], 2))
    assert payload["data"]["window_1y"]["es_99_1d_pct"] <= -8.0 / 4  # the crash sits in the worst 1%
    check_payload(payload)


def test_crisis_market_gives_high_stress_and_bearish_signal():
    payload = tail_risk.compute(make_frames(market("crisis")))
    comp = payload["data"]["stress_composite"]
    assert comp["components_used"] == 3
    assert comp["score"] == pytest.approx(round(np.mean([c["percentile_10y"] for c in comp["components"].values()]), 1))
    assert comp["components"]["vix"]["percentile_10y"] == 100.0 and comp["components"]["hy_oas_pct"]["value"] == 8.5
    assert comp["level"] in ("high", "extreme")
    sig = payload["signals"][0]
    assert sig["name"] == "tail_stress" and sig["direction"] == "bearish" and sig["urgency"] in ("high", "critical")
    check_payload(payload)
    calm = tail_risk.compute(make_frames(market("calm")))
    assert calm["data"]["stress_composite"]["score"] < comp["score"]
    assert calm["signals"][0]["direction"] != "bearish"
    check_payload(calm)


def test_missing_hy_spread_is_named_and_short_history_raises():
    parts = market("crisis")
    full = tail_risk.compute(make_frames(parts))
    part = tail_risk.compute(make_frames({"SP500": parts["SP500"], "VIXCLS": parts["VIXCLS"]}))
    comp = part["data"]["stress_composite"]
    assert comp["components_used"] == 2 and "hy_oas_pct" not in comp["components"]
    assert "stress_composite.hy_oas_pct" in part["data"]["unavailable"]
    assert "missing inputs: BAMLH0A0HYM2" in part["summary"] and "hy_oas_pct" in part["summary"]
    assert part["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(part)
    dates = bdays(50)
    with pytest.raises(InsufficientData):
        tail_risk.compute(make_frames({"SP500": series(dates, random_walk(50, 3000, 0.01, 1))}))
    with pytest.raises(InsufficientData):
        tail_risk.compute(make_frames({"VIXCLS": parts["VIXCLS"]}))
