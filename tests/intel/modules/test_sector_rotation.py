from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, random_walk, series, to_pandas

from intel.catalog import CYCLICAL_SECTORS, DEFENSIVE_SECTORS, SECTORS
from intel.envelope import InsufficientData
from intel.modules import sector_rotation

N = 400


def _market(cyc_tail=0.0, def_tail=0.0, tail=60, seed=1):
    """Random-walk sectors; over the last `tail` days cyclicals and defensives get an extra daily drift."""
    dates = bdays(N)
    parts = {"SP500": series(dates, random_walk(N, 4000, 0.008, seed))}
    for k, sid in enumerate(SECTORS):
        extra = cyc_tail if sid in CYCLICAL_SECTORS else def_tail if sid in DEFENSIVE_SECTORS else 0.0
        bump = np.exp(np.cumsum(np.concatenate([np.zeros(N - tail), np.full(tail, extra)])))
        parts[sid] = series(dates, random_walk(N, 50 + k, 0.01, seed + 10 + k) * bump)
    return parts


def _ret(s: pd.Series, days: int, end=None) -> float:
    """Independent reference: last value on or before end vs on or before end - days (pandas asof)."""
    end = pd.Timestamp(end or s.index[-1])
    return (s.asof(end) / s.asof(end - timedelta(days=days)) - 1) * 100


def test_relative_strength_ranking_and_spread_match_pandas():
    parts = _market(seed=3)
    payload = sector_rotation.compute(make_frames(parts))
    d = payload["data"]
    ps = {sid: to_pandas(f) for sid, f in parts.items()}
    scores = {}
    for sid in SECTORS:
        row = d["sectors"][sid]
        rels = []
        for h, days in (("1m", 30), ("3m", 91), ("6m", 182)):
            rel = _ret(ps[sid], days) - _ret(ps["SP500"], days)
            assert row[f"relative_{h}_pp"] == pytest.approx(round(rel, 2), abs=0.011)
            assert row[f"return_{h}_pct"] == pytest.approx(round(_ret(ps[sid], days), 2), abs=0.011)
            rels.append(rel)
        scores[sid] = np.mean(rels)
        assert row["leadership_score"] == pytest.approx(round(scores[sid], 2), abs=0.011)
    assert d["leadership_ranking"] == sorted(SECTORS, key=lambda s: -scores[s])
    assert d["sectors"][d["leaders"][0]]["rank"] == 1
    cyc = np.mean([_ret(ps[s], 91) for s in CYCLICAL_SECTORS])
    dfn = np.mean([_ret(ps[s], 91) for s in DEFENSIVE_SECTORS])
    assert d["cyclical_vs_defensive"]["spread_3m_pp"] == pytest.approx(round(cyc - dfn, 2), abs=0.011)
    old = NOW - timedelta(days=30)
    cyc_o = np.mean([_ret(ps[s], 91, old) for s in CYCLICAL_SECTORS])
    dfn_o = np.mean([_ret(ps[s], 91, old) for s in DEFENSIVE_SECTORS])
    assert d["cyclical_vs_defensive"]["spread_3m_pp_1m_ago"] == pytest.approx(round(cyc_o - dfn_o, 2), abs=0.011)
    outperf = sum(d["sectors"][s]["relative_3m_pp"] > 0 for s in SECTORS)
    assert d["sectors_outperforming_3m"] == outperf
    assert "rule" in d["rotation_phase"] and "spread" in d["rotation_phase"]["rule"]
    check_payload(payload)


def test_defensive_rotation_is_bearish_and_urgent():
    payload = sector_rotation.compute(make_frames(_market(cyc_tail=-0.004, def_tail=0.002)))
    spread = payload["data"]["cyclical_vs_defensive"]
    assert spread["spread_3m_pp"] < -8 and spread["spread_change_1m_pp"] < 0
    assert payload["data"]["rotation_phase"]["phase"] == "defensive"
    sig = {s["name"]: s for s in payload["signals"]}["rotation_phase"]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    check_payload(payload)


def test_cyclical_surge_is_expansion_and_bullish():
    payload = sector_rotation.compute(make_frames(_market(cyc_tail=0.004, def_tail=-0.001)))
    assert payload["data"]["rotation_phase"]["phase"] == "expansion"
    sig = {s["name"]: s for s in payload["signals"]}["rotation_phase"]
    assert sig["direction"] == "bullish" and sig["urgency"] == "low"
    check_payload(payload)


def test_missing_index_ranks_on_own_returns_and_lowers_confidence():
    parts = _market(cyc_tail=0.004, def_tail=-0.001)
    full = sector_rotation.compute(make_frames(parts))
    no_index = sector_rotation.compute(make_frames({k: v for k, v in parts.items() if k != "SP500"}))
    d = no_index["data"]
    assert no_index["data_sources"]["missing"] == ["SP500"] and "relative_strength" in d["unavailable"]
    assert "relative_3m_pp" not in d["sectors"]["XLK"]
    own = {s: np.mean([d["sectors"][s][f"return_{h}_pct"] for h in ("1m", "3m", "6m")]) for s in SECTORS}
    assert d["leadership_ranking"][0] == max(own, key=own.get)
    conf = lambda p: {s["name"]: s for s in p["signals"]}["rotation_phase"]["confidence"]  # noqa: E731
    assert conf(no_index) <= conf(full)
    assert "no S&P 500 data" in no_index["summary"] and "missing inputs: SP500" in no_index["summary"]
    check_payload(no_index)


def test_stale_sector_and_short_history():
    parts = _market()
    parts["XLE"] = parts["XLE"].head(N - 15)  # three weeks old
    stale = sector_rotation.compute(make_frames(parts))
    assert "XLE" in stale["summary"] and "stale inputs" in stale["summary"]
    fresh = sector_rotation.compute(make_frames(_market()))
    conf = lambda p: {s["name"]: s for s in p["signals"]}["rotation_phase"]["confidence"]  # noqa: E731
    assert conf(stale) < conf(fresh)
    check_payload(stale)
    # 50 days: the 1-month figures exist, the 6-month ones and the phase do not
    short = {k: v.tail(50) for k, v in _market().items()}
    payload = sector_rotation.compute(make_frames(short))
    assert payload["data"]["sectors"]["XLK"]["return_6m_pct"] is None
    assert payload["data"]["sectors"]["XLK"]["return_1m_pct"] is not None
    assert payload["data"]["rotation_phase"]["phase"] is None and "rotation_phase" in payload["data"]["unavailable"]
    check_payload(payload)
    with pytest.raises(InsufficientData):
        sector_rotation.compute(make_frames({k: v.tail(10) for k, v in _market().items()}))
    with pytest.raises(InsufficientData):
        sector_rotation.compute(make_frames({"SP500": _market()["SP500"]}))
