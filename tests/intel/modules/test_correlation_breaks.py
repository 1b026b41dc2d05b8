import math

import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, series

from intel.envelope import InsufficientData
from intel.modules import correlation_breaks as cb

N = 700


def _pair(n_coupled: int, seed: int = 2, sign: float = 1.0):
    """SP500 and VIX independent, then for the last n_coupled days VIX moves with the S&P 500."""
    rng = np.random.default_rng(seed)
    x, e = rng.normal(0, 0.01, N), rng.normal(0, 0.01, N)
    y = e.copy()
    y[N - n_coupled:] = sign * x[N - n_coupled:] + 0.3 * e[N - n_coupled:]
    dates = bdays(N)
    return dates, x, y, {"SP500": series(dates, 3000 * np.exp(np.cumsum(x))),
                         "VIXCLS": series(dates, 15 * np.exp(np.cumsum(y)))}


def _reference(dates, x, y):
    """pandas rolling correlations and the Fisher z of the 63-day window against the 252 days before it."""
    lx, ly = np.diff(np.log(np.exp(np.cumsum(x)))), np.diff(np.log(np.exp(np.cumsum(y))))
    sx, sy = pd.Series(lx, index=dates[1:]), pd.Series(ly, index=dates[1:])
    recent, base = sx.rolling(63).corr(sy), sx.rolling(252).corr(sy).shift(63)
    z = (np.arctanh(recent) - np.arctanh(base)) / math.sqrt(1 / 60 + 1 / 249)
    return recent, base, z


def test_zscore_and_since_date_match_an_independent_reference():
    dates, x, y, parts = _pair(40)
    payload = cb.compute(make_frames(parts))
    pair = payload["data"]["pairs"]["SP500/VIXCLS"]
    recent, base, z = _reference(dates, x, y)
    assert pair["zscore"] == pytest.approx(round(z.iloc[-1], 2), abs=1e-9)
    assert pair["correlation_63d"] == pytest.approx(round(recent.iloc[-1], 3), abs=1e-9)
    assert pair["baseline_1y"] == pytest.approx(round(base.iloc[-1], 3), abs=1e-9)
    assert pair["broken"] and pair["direction"] == "correlation rose"
    broken = (z.abs() >= 2) & (np.sign(z) == 1)
    start = len(broken) - 1
    while broken.iloc[start - 1]:
        start -= 1
    assert pair["since"] == broken.index[start].isoformat() and pair["days_broken"] == len(broken) - start
    # the coupling began 40 days ago, so the break cannot be older than that
    assert pair["since"] >= dates[N - 40].isoformat()
    p = 2 * (1 - 0.5 * (1 + math.erf(abs(z.iloc[-1]) / math.sqrt(2))))
    assert pair["p_value"] == pytest.approx(round(p, 4), abs=1e-9)
    assert payload["data"]["breaks"][0]["pair"] == "SP500/VIXCLS"
    assert any(s["name"] == "break_sp500_vixcls" and s["urgency"] == "high" for s in payload["signals"])
    check_payload(payload)


def test_no_break_when_relationship_is_steady():
    _, _, _, parts = _pair(0, seed=4)
    payload = cb.compute(make_frames(parts))
    pair = payload["data"]["pairs"]["SP500/VIXCLS"]
    assert abs(pair["zscore"]) < 2 and not pair["broken"] and payload["data"]["pairs_broken"] == 0
    assert payload["signals"][0]["direction"] == "neutral" and len(payload["signals"]) == 1
    check_payload(payload)


def test_many_breaks_make_the_stability_signal_bearish():
    rng = np.random.default_rng(8)
    dates = bdays(N)
    shocks = rng.normal(0, 0.01, (N, 5))
    factor = rng.normal(0, 0.01, N)
    shocks[-63:] = factor[-63:, None] + 0.2 * shocks[-63:]
    parts = {sid: series(dates, 100 * np.exp(np.cumsum(shocks[:, i])))
             for i, sid in enumerate(("SP500", "VIXCLS", "DTWEXBGS", "DCOILWTICO", "CBBTCUSD"))}
    parts["DGS10"] = series(dates, 4 + np.cumsum(rng.normal(0, 0.05, N)))
    payload = cb.compute(make_frames(parts))
    d = payload["data"]
    assert d["pairs_broken"] >= 10 and d["share_broken_pct"] >= 50
    stability = payload["signals"][0]
    assert stability["name"] == "correlation_stability" and stability["direction"] == "bearish"
    assert stability["urgency"] == "high" and len(payload["signals"]) == 4
    check_payload(payload)


def test_degrades_with_missing_inputs_and_short_history():
    _, _, _, parts = _pair(40)
    payload = cb.compute(make_frames(parts))
    assert "SP500/DGS10" in payload["data"]["unavailable"] and "DGS10" in payload["data_sources"]["missing"]
    assert "missing inputs" in payload["summary"]
    parts["CBBTCUSD"] = series(bdays(100), np.linspace(100, 120, 100))  # too short to test
    payload = cb.compute(make_frames(parts))
    assert "only" in payload["data"]["unavailable"]["SP500/CBBTCUSD"]
    check_payload(payload)
    with pytest.raises(InsufficientData):
        cb.compute(make_frames({k: v.tail(200) for k, v in parts.items()}))
