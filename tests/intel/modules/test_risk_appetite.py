import math

import numpy as np
import pytest
from builders import bdays, check_payload, make_frames, market, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import risk_appetite as ra

N = 900


def _parts(seed: int = 6) -> dict:
    dates = bdays(N)
    rng = np.random.default_rng(seed)
    return {"SP500": series(dates, random_walk(N, 4000, 0.01, seed)),
            "BAMLH0A0HYM2": series(dates, np.clip(4 + np.cumsum(rng.normal(0, 0.04, N)), 1, None)),
            "VIXCLS": series(dates, random_walk(N, 16, 0.05, seed + 1)),
            "DGS10": series(dates, 4 + np.cumsum(rng.normal(0, 0.05, N))),
            "DEXJPUS": series(dates, random_walk(N, 140, 0.006, seed + 2))}


def _component_score(values: np.ndarray, sign: float, kind: str) -> float:
    """Independent rebuild: 21-day move, scaled by the RMS of the last 756 moves, through the normal CDF."""
    if kind == "log":
        moves = np.log(values[21:] / values[:-21]) * 100 * sign
    else:
        moves = (values[21:] - values[:-21]) * 100 * sign
    moves = moves[-756:]
    z = moves[-1] / math.sqrt(np.mean(moves ** 2))
    return 100 * math.erf(z / math.sqrt(2))  # = 100 * (2 Phi(z) - 1)


def test_components_and_composite_match_a_hand_computation():
    parts = _parts()
    payload = ra.compute(make_frames(parts))
    d = payload["data"]
    expected = {"equities": _component_score(parts["SP500"]["value"].to_numpy(), 1, "log"),
                "credit": _component_score(parts["BAMLH0A0HYM2"]["value"].to_numpy(), -1, "diff"),
                "volatility": _component_score(parts["VIXCLS"]["value"].to_numpy(), -1, "log"),
                "yen_haven": _component_score(parts["DEXJPUS"]["value"].to_numpy(), 1, "log")}
    for name, value in expected.items():
        assert d["components"][name]["score"] == pytest.approx(round(value, 1), abs=1e-9), name
    spx = parts["SP500"]["value"].to_numpy()
    assert d["components"]["equities"]["move_1m_pct"] == pytest.approx(round(np.log(spx[-1] / spx[-22]) * 100, 2))
    assert d["components_used"] == 5
    assert d["score"] == pytest.approx(round(np.mean([c["score"] for c in d["components"].values()]), 1), abs=0.06)
    check_payload(payload)


def test_crisis_is_strong_risk_off_and_calm_is_not():
    crisis = ra.compute(make_frames(market("crisis", n=900)))
    d = crisis["data"]
    assert d["score"] <= -50 and d["regime"] == "strong risk-off"
    assert all(d["components"][k]["score"] < 0 for k in ("equities", "credit", "volatility"))
    sig = crisis["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] in ("high", "critical")
    check_payload(crisis)
    calm = ra.compute(make_frames(market("calm", n=900)))
    assert calm["data"]["score"] > -20 and calm["signals"][0]["direction"] != "bearish"


def test_missing_optional_inputs_and_short_history():
    parts = _parts()
    full = ra.compute(make_frames(parts))
    partial = ra.compute(make_frames({k: v for k, v in parts.items() if k not in ("DEXJPUS", "DGS10")}))
    d = partial["data"]
    assert d["components_used"] == 3 and {"yen_haven", "bond_haven"} <= set(d["unavailable"])
    assert set(partial["data_sources"]["missing"]) == {"DGS10", "DEXJPUS"}
    assert "missing inputs" in partial["summary"]
    check_payload(partial)
    assert full["data"]["components_used"] == 5
    # in a crisis every component agrees, so dropping the bond haven lowers confidence only through degradation
    crisis = market("crisis", n=900)
    with_bonds = ra.compute(make_frames(crisis))
    without = ra.compute(make_frames({k: v for k, v in crisis.items() if k != "DGS10"}))
    assert with_bonds["data"]["agreement_pct"] == without["data"]["agreement_pct"] == 100
    assert without["signals"][0]["confidence"] < with_bonds["signals"][0]["confidence"]
    short = ra.compute(make_frames({**{k: v.tail(100) for k, v in parts.items()}, "SP500": parts["SP500"]}))
    assert set(short["data"]["components"]) == {"equities"} and "credit" in short["data"]["unavailable"]
    check_payload(short)
    with pytest.raises(InsufficientData):
        ra.compute(make_frames({k: v.tail(60) for k, v in parts.items()}))
    with pytest.raises(InsufficientData):
        ra.compute(make_frames({"DEXJPUS": parts["DEXJPUS"]}))
