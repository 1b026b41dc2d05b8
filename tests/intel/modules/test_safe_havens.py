import numpy as np
import pandas as pd
import pytest

from builders import bdays, check_payload, make_frames, series, to_pandas
from intel.modules import safe_havens as sh


def _market(n=900, seed=1, haven_shock=False):
    rng = np.random.default_rng(seed)
    spx_r = rng.normal(0.0003, 0.01, n)
    # the yen gains on equity down days (its quote is yen per dollar, so the quote falls)
    jpy_r = -(-0.3 * spx_r + rng.normal(0, 0.004, n))
    chf_r = -(-0.1 * spx_r + rng.normal(0, 0.004, n))
    ten_d = 1.0 * spx_r * 10 + rng.normal(0, 0.04, n)  # yields fall with equities (in percentage points)
    if haven_shock:  # a month of steady haven buying
        jpy_r[-21:] -= 0.0025
        chf_r[-21:] -= 0.002
        ten_d[-21:] -= 0.025
    dates = bdays(n)
    return {"SP500": series(dates, 4000 * np.exp(np.cumsum(spx_r))),
            "DEXJPUS": series(dates, 140 * np.exp(np.cumsum(jpy_r))),
            "DEXSZUS": series(dates, 0.9 * np.exp(np.cumsum(chf_r))),
            "DGS10": series(dates, 4 + np.cumsum(ten_d))}


def test_risk_off_behaviour_matches_pandas():
    parts = _market()
    payload = sh.compute(make_frames(parts))
    d = payload["data"]
    spx = np.log(to_pandas(parts["SP500"])).diff() * 100
    yen = -np.log(to_pandas(parts["DEXJPUS"])).diff() * 100
    ten = -to_pandas(parts["DGS10"]).diff() * 100
    frame = pd.DataFrame({"spx": spx, "yen": yen, "ten": ten}).dropna()
    off = frame[frame.spx <= np.percentile(frame.spx, 5)]
    jpy = d["havens"]["jpy"]["on_risk_off_days"]
    assert jpy["risk_off_days"] == len(off) and jpy["aligned_days"] == len(frame)
    assert jpy["mean_move_risk_off_pct"] == pytest.approx(round(off.yen.mean(), 3))
    assert jpy["hit_rate_risk_off_pct"] == pytest.approx(round((off.yen > 0).mean() * 100, 1))
    beta = np.cov(frame.yen, frame.spx)[0, 1] / frame.spx.var()
    assert jpy["beta_pct_per_1pct_sp500"] == pytest.approx(round(beta, 3))
    ust = d["havens"]["ust10y"]["on_risk_off_days"]
    assert ust["mean_move_risk_off_bp"] == pytest.approx(round(off.ten.mean(), 3))
    assert d["risk_off_threshold_sp500_return_pct"] == pytest.approx(round(np.percentile(frame.spx, 5), 2))
    # 1-month haven move of the yen: its percentage gain against the dollar over 21 observations
    q = parts["DEXJPUS"]["value"].to_numpy()
    assert d["havens"]["jpy"]["haven_move_1m_pct"] == pytest.approx(round(-np.log(q[-1] / q[-22]) * 100, 2))
    assert jpy["mean_move_risk_off_pct"] > 0  # the constructed yen is a haven
    check_payload(payload)


def test_haven_buying_is_bearish_for_risk():
    payload = sh.compute(make_frames(_market(haven_shock=True)))
    d = payload["data"]
    assert d["haven_demand_score_z"] >= 1 and d["haven_demand_state"] == "strong"
    sig = [s for s in payload["signals"] if s["name"] == "haven_demand"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] in ("medium", "high")
    calm = sh.compute(make_frames(_market()))
    assert calm["data"]["haven_demand_score_z"] < d["haven_demand_score_z"]
    check_payload(payload)


def test_missing_sp500_and_treasury_degrade():
    parts = _market()
    del parts["SP500"], parts["DGS10"]
    payload = sh.compute(make_frames(parts))
    d = payload["data"]
    assert {"risk_off_behaviour", "ust10y"} <= set(d["unavailable"])
    assert "on_risk_off_days" not in d["havens"]["jpy"] and "ust10y" not in d["havens"]
    assert d["haven_demand_score_z"] is not None
    assert "missing inputs: DGS10, SP500" in payload["summary"]
    check_payload(payload)
