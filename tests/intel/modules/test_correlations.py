import numpy as np
import pandas as pd
import pytest
from builders import bdays, cdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import correlations

N = 500


def _market(seed: int = 1, common_from: int | None = None) -> dict:
    """Six asset series on business days (bitcoin on calendar days); from `common_from` on, every
    daily change is driven by one common factor, so correlations converge."""
    rng = np.random.default_rng(seed)
    dates = bdays(N)
    shocks = rng.normal(0, 0.01, (N, 5))
    if common_from is not None:
        factor = rng.normal(0, 0.01, N)
        shocks[common_from:] = factor[common_from:, None] * np.array([1, 1, -1, 1, 1]) + shocks[common_from:] * 0.2
    spx = 3000 * np.exp(np.cumsum(shocks[:, 0]))
    dgs10 = 4 + np.cumsum(shocks[:, 1]) * 5
    vix = 15 * np.exp(np.cumsum(shocks[:, 2]))
    usd = 110 * np.exp(np.cumsum(shocks[:, 3]))
    oil = 70 * np.exp(np.cumsum(shocks[:, 4]))
    days = cdays(730)
    btc = random_walk(730, 30000, 0.03, seed + 5)
    return {"SP500": series(dates, spx), "DGS10": series(dates, dgs10), "VIXCLS": series(dates, vix),
            "DTWEXBGS": series(dates, usd), "DCOILWTICO": series(dates, oil), "CBBTCUSD": series(days, btc)}


def _pandas_changes(parts, a, kind_a, b, kind_b):
    """Independent reference: inner-join the levels, then changes between consecutive common dates."""
    left = pd.Series(parts[a]["value"].to_list(), index=parts[a]["date"].to_list(), name="a")
    right = pd.Series(parts[b]["value"].to_list(), index=parts[b]["date"].to_list(), name="b")
    joined = pd.concat([left, right], axis=1, join="inner").sort_index()
    out = {}
    for col, kind in (("a", kind_a), ("b", kind_b)):
        s = joined[col]
        out[col] = {"log": np.log(s).diff(), "pct": s.pct_change(), "diff": s.diff()}[kind]
    return pd.DataFrame(out).dropna()


@pytest.mark.parametrize("a,kind_a,b,kind_b", [("SP500", "log", "DGS10", "diff"),
                                               ("SP500", "log", "CBBTCUSD", "log"),
                                               ("VIXCLS", "log", "DCOILWTICO", "pct")])
def test_pair_correlations_match_pandas(a, kind_a, b, kind_b):
    parts = _market()
    payload = correlations.compute(make_frames(parts))
    ref = _pandas_changes(parts, a, kind_a, b, kind_b)
    pair = payload["data"]["pairs"][f"{a}/{b}"]
    assert pair["correlation_63d"] == pytest.approx(round(ref.tail(63).corr().iloc[0, 1], 3), abs=1e-9)
    base = ref.iloc[-63 - 252:-63]
    assert pair["baseline_1y"] == pytest.approx(round(base.corr().iloc[0, 1], 3), abs=1e-9)
    assert pair["common_days"] == len(ref)
    rolling = ref["a"].rolling(63).corr(ref["b"]).dropna()
    assert pair["change_1m"] == pytest.approx(round(rolling.iloc[-1] - rolling.iloc[-22], 3), abs=1e-3)
    matrix = payload["data"]["matrix_63d"]
    la, lb = correlations.label(a), correlations.label(b)
    assert matrix[la][lb] == matrix[lb][la] == pair["correlation_63d"]
    check_payload(payload)


def test_converging_correlations_give_bearish_diversification_signal():
    payload = correlations.compute(make_frames(_market(common_from=N - 63)))
    d = payload["data"]
    # ten pairs share the factor, the five bitcoin pairs do not
    assert d["average_abs_correlation_63d"] > 0.6 and d["average_abs_correlation_baseline_1y"] < 0.2
    assert d["average_abs_correlation_shift"] >= 0.2
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    assert d["strongest_negative"]["assets"].endswith("VIX")  # VIX loads negatively on the common factor
    check_payload(payload)


def test_independent_assets_give_neutral_signal():
    payload = correlations.compute(make_frames(_market(seed=3)))
    assert payload["data"]["average_abs_correlation_63d"] < 0.3
    assert payload["signals"][0]["direction"] in ("neutral", "bullish")


def test_missing_series_and_short_history_degrade_honestly():
    parts = _market()
    full = correlations.compute(make_frames(parts))
    two = correlations.compute(make_frames({k: parts[k] for k in ("SP500", "DGS10")}))
    assert two["data"]["pairs_computed"] == 1 and "SP500/VIXCLS" in two["data"]["unavailable"]
    assert set(two["data_sources"]["missing"]) == {"VIXCLS", "DTWEXBGS", "DCOILWTICO", "CBBTCUSD"}
    assert two["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    assert "missing inputs" in two["summary"]
    check_payload(two)
    short = correlations.compute(make_frames({k: v.tail(120) for k, v in parts.items()}))
    assert short["data"]["average_abs_correlation_baseline_1y"] is None
    assert "baseline_1y" in short["data"]["unavailable"]
    check_payload(short)
    with pytest.raises(InsufficientData):
        correlations.compute(make_frames({k: v.tail(30) for k, v in parts.items()}))
    with pytest.raises(InsufficientData):
        correlations.compute(make_frames({"SP500": parts["SP500"]}))
