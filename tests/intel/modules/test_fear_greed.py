import numpy as np
import pandas as pd
import pytest
from builders import check_payload, make_frames, market, random_walk, series, to_pandas

from intel.catalog import SECTORS
from intel.envelope import InsufficientData
from intel.modules import fear_greed as fg

N = 1500


def _parts(kind: str = "calm", seed: int = 12) -> dict:
    parts = {k: v for k, v in market(kind, n=N, seed=seed).items()
             if k in ("SP500", "VIXCLS", "BAMLH0A0HYM2", "DGS10")}
    dates, spx = parts["SP500"]["date"].to_list(), parts["SP500"]["value"].to_numpy()
    for i, sid in enumerate(SECTORS):  # each sector: the index times its own noise
        parts[sid] = series(dates, spx * random_walk(N, 1.0, 0.006, seed + 10 + i))
    return parts


def _pct(hist: pd.Series, fear_high: bool = False) -> float:
    """Independent percentile: share of the last 1260 readings at or below (or above, inverted) today's."""
    hist = hist.dropna().tail(1260)
    today = hist.iloc[-1]
    return ((hist >= today) if fear_high else (hist <= today)).mean() * 100


def test_component_scores_match_pandas_percentiles():
    parts = _parts()
    payload = fg.compute(make_frames(parts))
    c = payload["data"]["components"]
    spx, vix, hy = to_pandas(parts["SP500"]), to_pandas(parts["VIXCLS"]), to_pandas(parts["BAMLH0A0HYM2"])
    assert c["market_momentum"]["score"] == pytest.approx(round(_pct(spx / spx.rolling(125).mean() - 1), 1), abs=1e-9)
    assert c["price_strength"]["score"] == pytest.approx(round(_pct(spx / spx.rolling(252).max() - 1), 1), abs=1e-9)
    assert c["volatility"]["score"] == pytest.approx(round(_pct(vix / vix.rolling(50).mean() - 1, True), 1), abs=1e-9)
    assert c["junk_bond_demand"]["score"] == pytest.approx(round(_pct(hy, True), 1), abs=1e-9)
    above = pd.concat([(to_pandas(parts[sid]) > to_pandas(parts[sid]).rolling(50).mean())
                       .where(to_pandas(parts[sid]).rolling(50).mean().notna())
                       for sid in SECTORS], axis=1)
    share = above.mean(axis=1) * 100
    assert c["market_breadth"]["value_pct"] == pytest.approx(round(share.iloc[-1], 2), abs=1e-9)
    assert c["market_breadth"]["score"] == pytest.approx(round(_pct(share), 1), abs=1e-9)
    assert payload["data"]["components_used"] == 6
    mean = np.mean([v["score"] for v in c.values()])
    assert payload["data"]["score"] == pytest.approx(round(mean, 1), abs=0.06)
    assert 0 <= payload["data"]["score"] <= 100
    check_payload(payload)


def test_crisis_is_extreme_fear_and_bearish():
    payload = fg.compute(make_frames(_parts("crisis")))
    d = payload["data"]
    assert d["score"] < 25 and d["label"] == "extreme fear"
    assert d["components"]["volatility"]["score"] < 10 and d["components"]["junk_bond_demand"]["score"] < 10
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    check_payload(payload)


def test_missing_sectors_and_short_history_degrade():
    parts = _parts()
    full = fg.compute(make_frames(parts))
    no_sectors = fg.compute(make_frames({k: v for k, v in parts.items() if k not in SECTORS}))
    d = no_sectors["data"]
    assert d["components_used"] == 5 and "market_breadth" in d["unavailable"]
    assert set(no_sectors["data_sources"]["missing"]) == set(SECTORS)
    check_payload(no_sectors)
    assert full["data"]["components_used"] == 6
    # in a crisis every component is extreme either way, so losing the VIX costs confidence through degradation
    crisis = _parts("crisis")
    with_vix = fg.compute(make_frames(crisis))
    no_vix = fg.compute(make_frames({k: v for k, v in crisis.items() if k != "VIXCLS"}))
    assert no_vix["signals"][0]["confidence"] < with_vix["signals"][0]["confidence"] - 0.1
    assert no_vix["signals"][0]["direction"] == "bearish" and "missing inputs: VIXCLS" in no_vix["summary"]
    short_history = {**{k: v.tail(200) for k, v in parts.items()}, "BAMLH0A0HYM2": parts["BAMLH0A0HYM2"]}
    short = fg.compute(make_frames(short_history))
    assert list(short["data"]["components"]) == ["junk_bond_demand"]
    assert "market momentum" in short["summary"]
    check_payload(short)
    with pytest.raises(InsufficientData):
        fg.compute(make_frames({k: v.tail(200) for k, v in parts.items()}))
    with pytest.raises(InsufficientData):
        fg.compute(make_frames({sid: parts[sid] for sid in SECTORS}))
