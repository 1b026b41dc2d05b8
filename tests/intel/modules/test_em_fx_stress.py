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
    # a stale peso: its two components stay out of the score (weight 0), the broad dollar carries it
    old = np.busday_offset(NOW, -30).astype(object)
    parts["DEXMXUS"] = series(bdays(800, old), random_walk(800, 17, 0.007, 1))
    payload = em.compute(make_frames(parts))
    w = {k: c["weight"] for k, c in payload["data"]["components"].items()}
    assert w == {"mxn_move_1m": 0.0, "mxn_vol_1m": 0.0, "broad_dollar_move_1m": 1.0}
    assert payload["data"]["stress_score_z"] == payload["data"]["components"]["broad_dollar_move_1m"]["zscore_10y"]
    check_payload(payload)


def _stopped_a_year_ago(frame):
    from datetime import timedelta
    return series(bdays(frame.height, NOW - timedelta(days=365)), frame["value"].to_numpy())


def test_stale_peso_and_yuan_are_left_out_of_the_score():
    parts = _market()
    mxn = parts["DEXMXUS"]["value"].to_numpy().copy()
    mxn[-21:] *= np.exp(np.linspace(0.01, 0.2, 21))  # a peso crash, a year before the clock
    parts["DEXMXUS"] = _stopped_a_year_ago(series(parts["DEXMXUS"]["date"], mxn))
    parts["DEXCHUS"] = _stopped_a_year_ago(parts["DEXCHUS"])
    payload = em.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    only_broad = em.compute(make_frames({"DTWEXBGS": parts["DTWEXBGS"]}))["data"]
    for key in ("stress_score_z", "state", "stress_percentile_10y", "worst_score_10y", "worst_score_date",
                "history_start", "history_days"):
        assert d[key] == only_broad[key], key
    weights = {k: c["weight"] for k, c in d["components"].items()}
    assert weights == {"mxn_move_1m": 0.0, "mxn_vol_1m": 0.0, "cny_move_1m": 0.0, "broad_dollar_move_1m": 1.0}
    # the stale components keep their last values, dated and flagged
    last = parts["DEXMXUS"]["date"][-1].isoformat()
    mxn_move = d["components"]["mxn_move_1m"]
    assert mxn_move["stale"] is True and mxn_move["last_observation"] == last
    assert mxn_move["zscore_10y"] >= 2
    s = payload["summary"]
    assert "mxn move 1m z" not in s and "broad dollar move 1m z" in s
    assert f"as stale: mxn move 1m (last {last}), mxn vol 1m (last {last}), cny move 1m (last " in s
    assert "stale inputs: DEXMXUS, DEXCHUS" in s
    fresh = em.compute(make_frames(_market()))
    assert payload["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]


def test_every_component_stale_leaves_the_score_unavailable():
    parts = {k: _stopped_a_year_ago(v) for k, v in _market().items()}
    payload = em.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    assert d["stress_score_z"] is None and d["state"] is None and d["stress_percentile_10y"] is None
    assert "stale" in d["unavailable"]["stress_score"]
    assert payload["signals"] == []
    assert all(c["stale"] and c["weight"] == 0.0 for c in d["components"].values())
    assert "The emerging-market FX stress score is" not in payload["summary"]
