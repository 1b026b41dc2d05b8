from datetime import date, timedelta

import numpy as np
import pytest
from builders import check_payload, make_frames, series, weekly

from intel.modules import financial_conditions as fc
from tests.intel.provenance_checks import expanded

NOW = date(2024, 6, 28)  # a Friday


def _paths(kind: str, n: int = 600, seed: int = 4) -> dict:
    rng = np.random.default_rng(seed)
    anfci = -0.45 + np.cumsum(rng.normal(0, 0.01, n))
    stl = -0.3 + np.cumsum(rng.normal(0, 0.04, n))
    if kind == "tightening":  # a stress episode over the last 13 weeks
        anfci[-13:] += np.linspace(0.05, 0.9, 13)
        stl[-13:] += np.linspace(0.3, 3.2, 13)
    elif kind == "easing":
        anfci[-13:] -= np.linspace(0.02, 0.25, 13)
        stl[-13:] -= np.linspace(0.1, 1.0, 13)
    return {"ANFCI": series(weekly(n, NOW), anfci), "STLFSI4": series(weekly(n, NOW), stl)}


def test_levels_zscores_and_changes_against_numpy():
    parts = _paths("calm")
    payload = fc.compute(make_frames(parts, now=NOW))
    d = payload["data"]["anfci"]
    dates, values = parts["ANFCI"]["date"].to_list(), parts["ANFCI"]["value"].to_numpy()
    decade = np.array([v for day, v in zip(dates, values) if day > NOW - timedelta(days=3653)])
    sd = decade.std(ddof=1)
    assert d["level"] == pytest.approx(round(values[-1], 3))
    assert d["zscore_10y"] == pytest.approx(round((values[-1] - decade.mean()) / sd, 2))
    assert d["percentile_10y"] == pytest.approx(round((decade <= values[-1]).mean() * 100, 1))
    # 1m: against the last Friday on or before 30 days earlier (2024-05-29 -> 2024-05-24, five weeks back);
    # 3m: on or before 91 days earlier (2024-03-29, thirteen weeks back)
    assert d["change_1m"] == pytest.approx(round(values[-1] - values[-6], 3))
    assert d["change_3m"] == pytest.approx(round(values[-1] - values[-14], 3))
    assert d["change_3m_sd"] == pytest.approx(round((values[-1] - values[-14]) / sd, 2))
    assert d["week_ending"] == "2024-06-28"
    z = [payload["data"][k]["zscore_10y"] for k in ("anfci", "stlfsi4")]
    assert payload["data"]["overall"]["composite_zscore_10y"] == pytest.approx(np.mean(z), abs=0.006)
    check_payload(payload)


def test_stress_episode_is_tightening_and_critical():
    payload = fc.compute(make_frames(_paths("tightening"), now=NOW))
    o = payload["data"]["overall"]
    assert o["state"] == "tightening" and o["level_state"] == "tight"
    assert payload["data"]["stlfsi4"]["level"] > fc.CRISIS_STLFSI
    assert payload["data"]["anfci"]["direction_1m"] == "tightening"
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "critical"
    check_payload(payload)


def test_easing_is_bullish():
    payload = fc.compute(make_frames(_paths("easing"), now=NOW))
    o = payload["data"]["overall"]
    assert o["state"] == "easing" and o["change_3m_sd"] < -fc.MOVE_3M_SD
    assert payload["signals"][0]["direction"] == "bullish"
    check_payload(payload)


def test_missing_index_is_listed_and_costs_confidence():
    parts = _paths("calm")
    full = fc.compute(make_frames(parts, now=NOW))
    one = fc.compute(make_frames({"ANFCI": parts["ANFCI"]}, now=NOW))
    assert one["data_sources"]["missing"] == ["STLFSI4"] and "stlfsi4" in one["data"]["unavailable"]
    assert one["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    assert "missing inputs: STLFSI4" in one["summary"]
    check_payload(one)


def test_stale_and_short_history():
    parts = _paths("calm")
    stale = fc.compute(make_frames({k: v.head(v.height - 3) for k, v in parts.items()}, now=NOW))
    assert "stale inputs: ANFCI, STLFSI4" in stale["summary"]
    assert stale["signals"][0]["confidence"] < fc.compute(make_frames(parts, now=NOW))["signals"][0]["confidence"]
    short = fc.compute(make_frames({k: v.tail(3) for k, v in parts.items()}, now=NOW))
    d = short["data"]
    assert d["anfci"]["zscore_10y"] is None and d["anfci"]["change_3m"] is None
    assert d["overall"]["state"] is None and "state" in d["unavailable"]
    check_payload(short)


def test_provenance_names_each_index_and_both_for_the_composite():
    prov = expanded(fc.compute(make_frames(_paths("calm"), now=NOW))["provenance"])
    change = prov["anfci.change_1m"]
    # weekly on Fridays: the value on or before 30 days earlier is 5 weeks back
    assert change["attribution"] == "observation" and change["recompute"]["kind"] == "difference"
    assert change["inputs"] == [{"series": "ANFCI", "dates": ["2024-06-28", "2024-05-24"]}]
    assert prov["stlfsi4.zscore_10y"]["inputs"] == [{"series": "STLFSI4", "through": "2024-06-28"}]
    composite = prov["overall.composite_zscore_10y"]
    assert {i["series"] for i in composite["inputs"]} == {"ANFCI", "STLFSI4"}
    assert "z-scores" in composite["operation"]
