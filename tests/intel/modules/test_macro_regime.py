import math
from datetime import date

import numpy as np
import pandas as pd
import pytest
from builders import check_payload, compounded, make_frames, month_starts, series

from intel.envelope import InsufficientData
from intel.modules import macro_regime

NOW = date(2024, 6, 28)
N = 140


def _parts(growth_end, inflation_end, k=8, seed=2):
    """Steady noisy history, then the last k months of growth and inflation at the given monthly rates."""
    rng = np.random.default_rng(seed)
    months = month_starts(N)
    tail = lambda base, end, sd: np.concatenate([base + rng.normal(0, sd, N - k), np.full(k, end)])  # noqa: E731
    return {"INDPRO": series(months, compounded(tail(0.002, growth_end, 0.003))),
            "PAYEMS": series(months, compounded(tail(0.0012, growth_end / 2, 0.0008), 150_000)),
            "CFNAI": series(months, tail(0.0, 300 * (growth_end - 0.002), 0.4)),
            "CPIAUCSL": series(months, compounded(tail(0.002, inflation_end, 0.001), 250)),
            "CPILFESL": series(months, compounded(tail(0.0022, inflation_end, 0.0008), 260))}


def _z(values, kind):
    s = pd.Series(values)
    x = s.rolling(3).mean() if kind == "avg3" else ((s / s.shift(6)) ** 2 - 1) * 100
    hist = x.tail(120).dropna()
    # winsorized at 4 robust sigmas around the median, as the methodology states
    med = hist.median()
    mad = 1.4826 * (hist - med).abs().median()
    hist = hist.clip(med - 4 * mad, med + 4 * mad)
    return (x.iloc[-1] - hist.mean()) / hist.std(ddof=1)


def test_goldilocks_probabilities_match_hand_computation():
    parts = _parts(growth_end=0.006, inflation_end=0.0)
    payload = macro_regime.compute(make_frames(parts, NOW))
    d = payload["data"]
    zs = {sid: _z(parts[sid]["value"].to_list(), "avg3" if sid == "CFNAI" else "rate") for sid in parts}
    g = np.mean([zs["INDPRO"], zs["PAYEMS"], zs["CFNAI"]])
    i = np.mean([zs["CPIAUCSL"], zs["CPILFESL"]])
    assert d["growth"]["components"]["INDPRO"]["zscore_10y"] == pytest.approx(round(zs["INDPRO"], 2))
    assert d["inflation"]["components"]["CPILFESL"]["zscore_10y"] == pytest.approx(round(zs["CPILFESL"], 2))
    assert (d["growth"]["score_z"] == pytest.approx(round(g, 2))
            and d["inflation"]["score_z"] == pytest.approx(round(i, 2)))
    pg, pi = 1 / (1 + math.exp(-1.7 * g)), 1 / (1 + math.exp(-1.7 * i))
    assert d["probabilities"]["goldilocks"] == pytest.approx(round(pg * (1 - pi), 3))
    assert d["probabilities"]["stagflation"] == pytest.approx(round((1 - pg) * pi, 3))
    assert sum(d["probabilities"].values()) == pytest.approx(1, abs=0.002)
    assert d["regime"] == "goldilocks" and d["period"] == "2024-05"
    assert payload["signals"][0]["direction"] == "bullish"
    assert sum(d["months_by_regime_10y"].values()) == 120
    assert d["months_in_regime"] >= 1 and d["regime_since"] <= "2024-05"
    check_payload(payload)


def test_stagflation_is_bearish_and_urgent():
    payload = macro_regime.compute(make_frames(_parts(growth_end=-0.006, inflation_end=0.008), NOW))
    d, sig = payload["data"], payload["signals"][0]
    assert d["regime"] == "stagflation" and d["probabilities"]["stagflation"] > 0.6
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    assert d["growth"]["score_z"] < 0 < d["inflation"]["score_z"]
    check_payload(payload)


def test_lagging_cfnai_is_carried_and_missing_inputs_degrade():
    parts = _parts(growth_end=0.006, inflation_end=0.0)
    lagging = dict(parts, CFNAI=parts["CFNAI"].head(N - 1))
    payload = macro_regime.compute(make_frames(lagging, NOW))
    assert payload["data"]["growth"]["components"]["CFNAI"]["period"] == "2024-04"
    no_core = macro_regime.compute(make_frames({k: v for k, v in parts.items() if k != "CPILFESL"}, NOW))
    top = no_core["data"]["probabilities"][no_core["data"]["regime"]]
    assert no_core["data_sources"]["missing"] == ["CPILFESL"]
    assert "CPILFESL" not in no_core["data"]["inflation"]["components"]
    assert no_core["signals"][0]["confidence"] < top  # lowered for the missing input
    assert "missing inputs: CPILFESL" in no_core["summary"]
    check_payload(no_core)


def test_no_inflation_axis_or_short_history_is_insufficient():
    parts = _parts(growth_end=0.006, inflation_end=0.0)
    with pytest.raises(InsufficientData):
        macro_regime.compute(make_frames({k: parts[k] for k in ("INDPRO", "PAYEMS", "CFNAI")}, NOW))
    with pytest.raises(InsufficientData):
        macro_regime.compute(make_frames({k: v.tail(20) for k, v in parts.items()}, NOW))
    # a component short of history is left out and named, the rest still classify
    short_payrolls = dict(parts, PAYEMS=parts["PAYEMS"].tail(20))
    payload = macro_regime.compute(make_frames(short_payrolls, NOW))
    assert "PAYEMS" in payload["data"]["unavailable"] and "PAYEMS" in payload["summary"]
    check_payload(payload)
