import numpy as np
import pytest

from builders import NOW, bdays, check_payload, make_frames, random_walk, series
from intel.modules import em_fx_stress as em


def _market(n=800, seed=1):
    dates = bdays(n)
    return {"DEXMXUS": series(dates, random_walk(n, 17, 0.007, seed)),
            "DEXCHUS": series(dates, random_walk(n, 7.1, 0.002, seed + 1)),
            "DTWEXBGS": series(dates, random_walk(n, 120, 0.003, seed + 2))}


def _z_move(values):
    raw = np.log(values[21:] / values[:-21]) * 100
    return (raw[-1] - raw.mean()) / raw.std(ddof=1), raw[-1]


def _z_vol(values):
    rets = np.diff(np.log(values))
    vol = np.array([rets[i - 21:i].std(ddof=1) for i in range(21, len(rets) + 1)]) * np.sqrt(252) * 100
    return (vol[-1] - vol.mean()) / vol.std(ddof=1)


def test_components_and_composite_by_hand():
    parts = _market()
    payload = em.compute(make_frames(parts))
    d = payload["data"]
    mxn, cny, usd = (parts[s]["value"].to_numpy() for s in ("DEXMXUS", "DEXCHUS", "DTWEXBGS"))
    z_mxn, raw_mxn = _z_move(mxn)
    assert d["components"]["mxn_move_1m"]["value"] == pytest.approx(round(raw_mxn, 2))
    assert d["components"]["mxn_move_1m"]["zscore_10y"] == pytest.approx(round(z_mxn, 2))
    zs = [z_mxn, _z_vol(mxn), _z_move(cny)[0], _z_move(usd)[0]]
    assert d["components"]["mxn_vol_1m"]["zscore_10y"] == pytest.approx(round(zs[1], 2))
    assert d["stress_score_z"] == pytest.approx(round(np.mean(zs), 2))
    assert all(c["weight"] == 0.25 for c in d["components"].values())
    check_payload(payload)


def test_peso_crash_is_bearish_and_urgent():
    parts = _market()
    mxn = parts["DEXMXUS"]["value"].to_numpy().copy()
    mxn[-21:] *= np.exp(np.linspace(0.01, 0.2, 21) + np.random.default_rng(3).normal(0, 0.02, 21))
    usd = parts["DTWEXBGS"]["value"].to_numpy().copy()
    usd[-21:] *= np.linspace(1.0, 1.06, 21)
    dates = parts["DEXMXUS"]["date"]
    parts.update({"DEXMXUS": series(dates, mxn), "DTWEXBGS": series(dates, usd)})
    payload = em.compute(make_frames(parts))
    d, sig = payload["data"], payload["signals"][0]
    assert d["stress_score_z"] >= 2 and d["state"] in ("severe", "extreme")
    assert sig["direction"] == "bearish" and sig["urgency"] in ("high", "critical")
    check_payload(payload)


def test_missing_and_stale_inputs_degrade():
    parts = _market()
    full = em.compute(make_frames(parts))
    del parts["DEXCHUS"]
    payload = em.compute(make_frames(parts))
    d = payload["data"]
    assert "cny_move_1m" in d["unavailable"] and "cny_move_1m" not in d["components"]
    assert sum(c["weight"] for c in d["components"].values()) == pytest.approx(1.0, abs=0.002)
    assert "missing inputs: DEXCHUS" in payload["summary"]
    assert payload["signals"][0]["confidence"] <= full["signals"][0]["confidence"]
    check_payload(payload)
    # a stale peso: its two components count half
    old = np.busday_offset(NOW, -30).astype(object)
    parts["DEXMXUS"] = series(bdays(800, old), random_walk(800, 17, 0.007, 1))
    payload = em.compute(make_frames(parts))
    w = {k: c["weight"] for k, c in payload["data"]["components"].items()}
    assert w["mxn_move_1m"] == pytest.approx(0.25) and w["broad_dollar_move_1m"] == pytest.approx(0.5)
    check_payload(payload)
