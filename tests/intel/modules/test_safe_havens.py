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


def _stopped_a_year_ago(frame):
    from datetime import timedelta

    from builders import NOW
    return series(bdays(frame.height, NOW - timedelta(days=365)), frame["value"].to_numpy())


def test_stale_yen_and_franc_are_left_out_of_todays_haven_demand():
    parts = _market(haven_shock=True)
    # the yen and franc stopped a year ago, right after a month of haven buying; the Treasury is calm today
    calm = _market()
    parts = {"SP500": calm["SP500"], "DGS10": calm["DGS10"],
             "DEXJPUS": _stopped_a_year_ago(parts["DEXJPUS"]), "DEXSZUS": _stopped_a_year_ago(parts["DEXSZUS"])}
    payload = sh.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    without = sh.compute(make_frames({k: parts[k] for k in ("SP500", "DGS10")}))["data"]
    assert d["haven_demand_score_z"] == without["haven_demand_score_z"]
    assert d["haven_demand_state"] == without["haven_demand_state"]
    # their own blocks keep their last moves, dated and flagged
    for key, sid in (("jpy", "DEXJPUS"), ("chf", "DEXSZUS")):
        row = d["havens"][key]
        assert row["stale"] is True and row["last_observation"] == parts[sid]["date"][-1].isoformat()
        assert row["haven_move_1m_pct"] > 0
    assert d["havens"]["ust10y"]["stale"] is False
    assert d.get("most_reliable_haven") in (None, "ust10y")
    s = payload["summary"]
    assert "The yen moved" not in s and "The Swiss franc moved" not in s and "The 10-year Treasury moved" in s
    assert (f"as stale: yen (last {d['havens']['jpy']['last_observation']}), "
            f"Swiss franc (last {d['havens']['chf']['last_observation']})") in s
    assert "stale inputs: DEXJPUS, DEXSZUS" in s
    fresh = sh.compute(make_frames(calm))
    conf = lambda p: next(x["confidence"] for x in p["signals"] if x["name"] == "haven_demand")  # noqa: E731
    assert conf(payload) < conf(fresh)


def test_every_haven_stale_leaves_the_demand_score_unavailable():
    parts = _market(haven_shock=True)
    parts = {"SP500": parts["SP500"], **{k: _stopped_a_year_ago(parts[k]) for k in ("DEXJPUS", "DEXSZUS", "DGS10")}}
    payload = sh.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    assert d["haven_demand_score_z"] is None and d["haven_demand_state"] is None
    assert "stale" in d["unavailable"]["haven_demand_score"]
    assert "haven_demand" not in {x["name"] for x in payload["signals"]}
    assert all(row["stale"] for row in d["havens"].values())
    assert "moved" not in payload["summary"].split("Risk-off days")[0]


def test_a_stale_sp500_gives_no_count_of_recent_risk_off_days():
    parts = _market()
    parts["SP500"] = _stopped_a_year_ago(parts["SP500"])
    payload = sh.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    assert "risk_off_days_last_21_sessions" not in d and "sp500_last_return_pct" not in d
    assert "stale" in d["unavailable"]["recent_risk_off_days"]
    assert "recent_risk_off_days" not in {x["name"] for x in payload["signals"]}
    assert d["haven_demand_score_z"] is not None
