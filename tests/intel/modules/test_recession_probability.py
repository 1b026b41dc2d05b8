from datetime import date, timedelta
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
from builders import check_payload, make_frames, series, weekly

from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.modules import recession_probability as rp
from intel.providers.replay import ReplayProvider
from tests.history import history_dir
from tests.intel.provenance_checks import expanded

PHI = NormalDist().cdf


def _months(first: tuple[int, int], last: tuple[int, int]) -> list[date]:
    a, b = first[0] * 12 + first[1] - 1, last[0] * 12 + last[1] - 1
    return [date(i // 12, i % 12 + 1, 1) for i in range(a, b + 1)]


def _curve(start: date, end: date, spread_of) -> dict:
    """Daily DGS3MO at 2% and DGS10 at 2% plus spread_of(day) on business days."""
    days = [d.astype(date) for d in np.arange(np.datetime64(start), np.datetime64(end) + 1) if np.is_busday(d)]
    return {"DGS3MO": series(days, [2.0] * len(days)), "DGS10": series(days, [2.0 + spread_of(d) for d in days])}


ALARM_MONTHS = {(2002, m) for m in range(3, 9)} | {(2006, 3)} | {(2008, m) for m in (1, 2, 3)} | \
    {(2011, m) for m in (6, 7, 8)}
RECESSIONS = {(2003, m) for m in range(1, 7)} | {(2006, m) for m in range(1, 7)}


def _backtest_market() -> tuple[dict, list[date]]:
    spread = lambda d: -0.5 if (d.year, d.month) in ALARM_MONTHS else 2.0  # noqa: E731
    parts = _curve(date(2000, 1, 3), date(2011, 12, 30), spread)
    months = _months((2000, 1), (2011, 12))
    parts["USREC"] = series(months, [1.0 if (m.year, m.month) in RECESSIONS else 0.0 for m in months])
    return parts, months


def test_backtest_counts_by_hand_and_scores_against_pandas():
    # alarms (spread -0.5, P = Phi(-0.5333 + 0.3165) = 41%) in 2002-03..08, 2006-03, 2008-01..03, 2011-06..08;
    # recessions start 2003-01 (called: first alarm 10 months before) and 2006-01 (missed). The 2006-03 alarm is
    # raised inside a recession (not counted), 2008 is a false alarm, 2011 is pending (its 12 months unknown).
    parts, months = _backtest_market()
    payload = rp.compute(make_frames(parts, now=date(2011, 12, 30)))
    b = payload["data"]["backtest"]["yield_curve_model"]
    assert b["sample_start"] == "2000-01" and b["sample_end"] == "2011-12"
    assert b["alarm_threshold_pct"] == 30.0 and b["lead_window_months"] == 12
    assert b["recessions_in_sample"] == 2 and b["recessions_called"] == 1 and b["hit_rate_pct"] == 50.0
    assert b["mean_lead_months"] == 10.0
    assert b["alarm_episodes"] == 3 and b["false_alarms"] == 1 and b["pending_alarms"] == 1
    prob = pd.Series([PHI(-0.5333 - 0.6330 * (-0.5 if (m.year, m.month) in ALARM_MONTHS else 2.0)) for m in months])
    usrec = pd.Series(parts["USREC"]["value"].to_numpy())
    target = usrec.shift(-12)
    ok = target.notna()
    assert b["months_scored"] == ok.sum() == 132
    assert b["brier_score"] == pytest.approx(round(((prob[ok] - target[ok]) ** 2).mean(), 3))
    assert b["monthly_accuracy_pct"] == pytest.approx(round(((prob[ok] >= 0.3) == (target[ok] == 1)).mean() * 100, 1))
    # the combined rule has no labour inputs here: the same alarms, scored against any recession in 12 months
    c = payload["data"]["backtest"]["combined_rule"]
    within = usrec.shift(-1).rolling(12).max().shift(-11)
    ok = within.notna()
    assert c["recessions_called"] == 1 and c["false_alarms"] == 1
    assert c["brier_score"] == pytest.approx(round(((prob[ok] - within[ok]) ** 2).mean(), 3))
    assert c["base_rate_pct"] == pytest.approx(round(within[ok].mean() * 100, 1))
    check_payload(payload)


def test_probit_uses_published_coefficients_and_skips_a_young_month():
    # May 2024 averages -1.0 pp; June has only three days (at +3.0) and is too young to average
    spread = lambda d: 3.0 if d.month == 6 else -1.0 if d.month == 5 else 0.5  # noqa: E731
    parts = _curve(date(2023, 1, 2), date(2024, 6, 5), spread)
    payload = rp.compute(make_frames(parts, now=date(2024, 6, 5)))
    y = payload["data"]["yield_curve_model"]
    assert y["spread_month"] == "2024-05" and y["spread_10y_3m_month_avg_pp"] == -1.0
    assert y["probability_12m_pct"] == pytest.approx(round(PHI(-0.5333 + 0.6330) * 100, 1))  # 54.0
    assert y["probability_3m_ago_pct"] == pytest.approx(round(PHI(-0.5333 - 0.6330 * 0.5) * 100, 1))
    assert y["spread_latest_pp"] == 3.0 and y["horizon_month"] == "2025-05"
    assert payload["data"]["combined"]["components_used"] == ["curve"]
    assert "backtest" in payload["data"]["unavailable"]  # no USREC
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    check_payload(payload)


def _labour_market(now: date) -> dict:
    parts = _curve(date(2023, 1, 2), now, lambda d: -1.0)
    months = _months((2023, 1), (2024, 5))  # 3.5% for 14 months, then 3.7, 3.9, 4.2: Sahm 0.4333 pp
    parts["UNRATE"] = series(months, [3.5] * 14 + [3.7, 3.9, 4.2])
    claims = [200_000.0] * 60 + [230_000.0] * 4  # 4-week average 15% above its 52-week low
    parts["ICSA"] = series(weekly(64, date(2024, 6, 22)), claims)
    return parts


def test_combined_rule_by_hand():
    now = date(2024, 6, 28)
    payload = rp.compute(make_frames(_labour_market(now), now=now))
    d = payload["data"]
    sahm_ramp = (0.43333333 - 0.2) / 0.3  # 0.778
    claims_ramp = (15.0 - 10.0) / 10.0  # 0.5
    labour = 0.8 * min(sahm_ramp, claims_ramp)  # the smaller ramp: 0.4
    curve = PHI(-0.5333 + 0.6330)
    combined = 1 - (1 - curve) * (1 - labour)
    assert d["sahm"]["indicator_pp"] == 0.43 and d["sahm"]["ramp_pct"] == pytest.approx(round(sahm_ramp * 100, 1))
    assert d["claims"]["rise_from_52w_low_pct"] == 15.0 and d["claims"]["ramp_pct"] == 50.0
    assert d["combined"]["labour_probability_pct"] == pytest.approx(40.0)
    assert d["combined"]["probability_12m_pct"] == pytest.approx(round(combined * 100, 1))
    assert d["combined"]["level"] == "high"
    assert d["combined"]["components_used"] == ["curve", "sahm", "claims"]
    check_payload(payload)


def test_sahm_trigger_without_claims_adds_nothing_and_is_said():
    now = date(2024, 6, 28)
    parts = _labour_market(now)
    parts["UNRATE"] = series(_months((2023, 1), (2024, 5)), [3.5] * 14 + [4.0, 4.2, 4.5])  # Sahm 0.73
    parts["ICSA"] = series(weekly(64, date(2024, 6, 22)), [200_000.0] * 64)
    payload = rp.compute(make_frames(parts, now=now))
    d = payload["data"]
    assert d["sahm"]["triggered"] and d["claims"]["ramp_pct"] == 0.0
    assert d["combined"]["labour_probability_pct"] == 0.0
    assert d["combined"]["probability_12m_pct"] == d["yield_curve_model"]["probability_12m_pct"]
    assert "do not confirm" in payload["summary"]
    check_payload(payload)


def test_steep_curve_is_bullish():
    parts = _curve(date(2023, 1, 2), date(2024, 6, 28), lambda d: 2.5)
    payload = rp.compute(make_frames(parts, now=date(2024, 6, 28)))
    assert payload["data"]["combined"]["probability_12m_pct"] < 20
    assert payload["signals"][0]["direction"] == "bullish"
    check_payload(payload)


def test_degrades_without_the_curve_and_refuses_with_claims_only():
    now = date(2024, 6, 28)
    parts = _labour_market(now)
    labour_only = rp.compute(make_frames({k: parts[k] for k in ("UNRATE", "ICSA")}, now=now))
    d = labour_only["data"]
    assert "yield_curve_model" in d["unavailable"] and "backtest" in d["unavailable"]
    assert d["combined"]["probability_12m_pct"] == pytest.approx(40.0)
    assert set(labour_only["data_sources"]["missing"]) == {"DGS10", "DGS3MO", "USREC"}
    full = rp.compute(make_frames(parts, now=now))
    assert labour_only["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    assert "missing inputs" in labour_only["summary"]
    check_payload(labour_only)
    with pytest.raises(InsufficientData):
        rp.compute(make_frames({"ICSA": parts["ICSA"]}, now=now))
    with pytest.raises(InsufficientData):
        rp.compute(make_frames({"DGS10": parts["DGS10"], "USREC": series([date(2024, 1, 1)], [0.0])}, now=now))


def test_stale_spread_is_named():
    parts, _ = _backtest_market()
    payload = rp.compute(make_frames(parts, now=date(2012, 1, 31)))  # daily yields a month old
    assert "stale inputs: DGS10, DGS3MO" in payload["summary"]
    fresh = rp.compute(make_frames(parts, now=date(2011, 12, 30)))
    assert payload["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]


def _replay_frames(now: date, folder=None):
    """recession_probability's inputs as the replay provider serves them at `now` (point in time)."""
    provider = ReplayProvider(folder if folder is not None else history_dir())
    start = now - timedelta(days=7700)  # the module's lookback
    return Frames.from_long(provider.observations(rp.INPUTS, start, now), now, "replay")


def test_a_spread_month_whose_horizon_has_passed_is_not_used():
    # DGS3MO stops at the end of 2023 while the 10-year and the labour data run on to mid-2025: the last common
    # month (2023-12) forecasts 2024-12, already past at the clock, so the curve must not feed the figure
    now = date(2025, 6, 30)
    parts = _labour_market(now)
    parts["DGS3MO"] = parts["DGS3MO"].filter(parts["DGS3MO"]["date"] <= date(2023, 12, 29))
    months = _months((2023, 1), (2025, 5))  # Sahm 0.4333 pp as in _labour_market, dated a year later
    parts["UNRATE"] = series(months, [3.5] * 26 + [3.7, 3.9, 4.2])
    parts["ICSA"] = series(weekly(64, date(2025, 6, 21)), [200_000.0] * 60 + [230_000.0] * 4)
    payload = rp.compute(make_frames(parts, now=now))
    d = payload["data"]
    assert "yield_curve_model" not in d
    reason = d["unavailable"]["yield_curve_model"]
    assert "2023-12" in reason and "2024-12" in reason
    assert d["combined"]["components_used"] == ["sahm", "claims"]
    assert d["combined"]["probability_12m_pct"] == d["combined"]["labour_probability_pct"] == pytest.approx(40.0)
    assert "chance of recession by 2024-12" not in payload["summary"]
    assert "not used" in payload["summary"]
    labour_only = rp.compute(make_frames({k: parts[k] for k in ("UNRATE", "ICSA")}, now=now))
    assert payload["signals"][0]["confidence"] < labour_only["signals"][0]["confidence"]
    check_payload(payload)


def test_a_spread_month_two_months_old_is_still_used():
    # the 3-month yield stopped at the end of April 2024: at 2024-06-28 April is two months back, still usable
    now = date(2024, 6, 28)
    parts = _labour_market(now)
    parts["DGS3MO"] = parts["DGS3MO"].filter(parts["DGS3MO"]["date"] <= date(2024, 4, 30))
    d = rp.compute(make_frames(parts, now=now))["data"]
    assert d["yield_curve_model"]["spread_month"] == "2024-04"
    assert d["combined"]["components_used"] == ["curve", "sahm", "claims"]


def test_replay_mid_2025_does_not_forecast_from_the_2023_spread():
    payload = rp.compute(_replay_frames(date(2025, 6, 30)))
    d = payload["data"]
    assert "yield_curve_model" not in d and "2023-12" in d["unavailable"]["yield_curve_model"]
    assert "curve" not in d["combined"]["components_used"]
    assert d["combined"]["probability_12m_pct"] == d["combined"]["labour_probability_pct"]
    assert "chance of recession by 2024-12" not in payload["summary"] and "not used" in payload["summary"]
    check_payload(payload)


def test_replay_backtest_in_october_2008_does_not_know_the_2008_recession():
    # NBER dated the December 2007 peak (USREC = 1 from 2008-01) on 2008-12-01: a replay at 2008-10-15 must
    # score only the 2001 recession, and its sample must end before 2008
    payload = rp.compute(_replay_frames(date(2008, 10, 15)))
    for name in ("yield_curve_model", "combined_rule"):
        b = payload["data"]["backtest"][name]
        assert b["recessions_in_sample"] == 1, name
        assert b["sample_end"] < "2008-01", name
    assert "1 of 1 recessions" in payload["summary"]
    check_payload(payload)


def _write(folder, sid: str, dates, values) -> None:
    lines = ["date,value"] + [f"{d.isoformat()},{v}" for d, v in zip(dates, values)]
    (folder / f"{sid}.csv").write_text("\n".join(lines) + "\n")


def test_backtest_sees_a_recession_only_once_nber_could_have_announced_it(tmp_path):
    # a constructed history with the real NBER months (2001-04..11, 2008-01..2009-06) and inversions a year
    # ahead of each; served by the replay provider, USREC waits for its release lag
    def within(d, spans):
        return any(a <= (d.year, d.month) <= b for a, b in spans)

    in_rec = lambda m: within(m, [((2001, 4), (2001, 11)), ((2008, 1), (2009, 6))])  # noqa: E731
    inverted = lambda d: within(d, [((2000, 3), (2000, 10)), ((2006, 8), (2007, 5))])  # noqa: E731
    parts = _curve(date(1995, 1, 2), date(2009, 12, 31), lambda d: -0.5 if inverted(d) else 1.5)
    for sid in ("DGS10", "DGS3MO"):
        _write(tmp_path, sid, parts[sid]["date"].to_list(), parts[sid]["value"].to_list())
    months = _months((1995, 1), (2009, 12))
    _write(tmp_path, "USREC", months, [1.0 if in_rec(m) else 0.0 for m in months])
    _write(tmp_path, "UNRATE", months, [5.0] * len(months))
    before = rp.compute(_replay_frames(date(2008, 10, 15), tmp_path))["data"]["backtest"]["yield_curve_model"]
    assert before["recessions_in_sample"] == 1 and before["sample_end"] < "2008-01"
    after = rp.compute(_replay_frames(date(2009, 1, 15), tmp_path))["data"]["backtest"]["yield_curve_model"]
    assert after["recessions_in_sample"] == 2 and after["recessions_called"] == 2


def test_provenance_names_the_spread_legs_and_the_backtest_inputs():
    parts, _ = _backtest_market()
    prov = expanded(rp.compute(make_frames(parts, now=date(2011, 12, 30)))["provenance"])
    latest = prov["yield_curve_model.spread_latest_pp"]
    assert latest["attribution"] == "observation" and latest["recompute"]["kind"] == "difference"
    assert latest["inputs"] == [{"series": "DGS10", "dates": ["2011-12-30"]},
                                {"series": "DGS3MO", "dates": ["2011-12-30"]}]
    probability = prov["yield_curve_model.probability_12m_pct"]
    assert [i["series"] for i in probability["inputs"]] == ["DGS10", "DGS3MO"]
    assert "probit" in probability["operation"]
    hits = prov["backtest.yield_curve_model.hit_rate_pct"]
    assert [i["series"] for i in hits["inputs"]] == ["DGS10", "DGS3MO", "USREC"]
    assert prov["backtest.yield_curve_model.alarm_threshold_pct"]["inputs"] == []
    assert all(entry["attribution"] != "module" for entry in prov.values())
