from datetime import date, timedelta

import numpy as np
import pytest
from builders import check_payload, make_frames, month_starts, series, weekly

from intel.envelope import InsufficientData
from intel.modules import economic_calendar as mod
from tests.intel.provenance_checks import expanded

NOW = date(2026, 11, 20)  # a Friday


def build(now: date = NOW, drop: tuple[str, ...] = ()) -> dict:
    """Every input with distinct values: monthly series through October 2026, GDP through Q3, claims
    through the week ending 2026-11-14."""
    rng = np.random.default_rng(3)
    parts = {}
    last_month = date(now.year, now.month, 1) - timedelta(days=1)
    last_month = date(last_month.year, last_month.month, 1)
    for i, sid in enumerate(mod.SERIES):
        if sid in drop:
            continue
        if sid == "ICSA":
            dates = weekly(30, now - timedelta(days=(now.weekday() - 5) % 7))
        elif sid == "GDPC1":
            dates = month_starts(30, date(2026, 7, 1))[::3]
        else:
            dates = month_starts(24, last_month)
        parts[sid] = series(dates, 100 + i + np.cumsum(rng.normal(0, 1, len(dates))))
    return mod.compute(make_frames(parts, now))


def test_upcoming_events_values_and_next_fomc():
    payload = build()
    check_payload(payload)
    d = payload["data"]
    assert d["window_days"] == 14 and d["window_end"] == "2026-12-04"
    by_event = {(r["event"], r["date"]): r for r in d["upcoming"]}
    es = by_event[("Employment Situation (payrolls, unemployment)", "2026-12-04")]
    assert es["reference_period"] == "2026-11" and es["days_until"] == 14 and es["importance"] == "high"
    snap = d["series"]["PAYEMS"]
    assert es["last_values"]["PAYEMS"] == {k: snap[k] for k in ("last", "last_date", "prior", "prior_date")}
    assert snap["last_date"] == "2026-10-01" and snap["prior_date"] == "2026-09-01"
    assert snap["next_release"] == "2026-12-04" and snap["last_release"] == "2026-11-06"
    assert ("Personal income and outlays (core PCE)", "2026-11-27") in by_event
    assert ("Initial jobless claims", "2026-11-25") in by_event  # Thanksgiving week
    assert d["next_fomc"]["date"] == "2026-12-09" and d["next_fomc"]["days_until"] == 19
    assert d["next_fomc"]["date_basis"] == "published date" and d["next_fomc"]["fed_funds"]["last_date"] == "2026-10-01"
    assert d["upcoming_count"] == len(d["upcoming"])
    assert all(r["date"] >= "2026-11-20" for r in d["upcoming"])
    sig = {s["name"]: s for s in payload["signals"]}
    assert sig["release_risk"]["urgency"] == "medium"  # core PCE a week away
    assert sig["fomc_proximity"]["urgency"] == "low"
    assert "2026-12-09" in payload["summary"] and "rule-based date" in payload["summary"]


def test_recent_releases_show_what_they_printed():
    parts_payload = build()
    recent = {r["event"]: r for r in parts_payload["data"]["recent"]}
    retail = recent["Advance retail sales"]
    assert retail["date"] == "2026-11-17" and retail["days_ago"] == 3 and retail["reference_period"] == "2026-10"
    p = retail["printed"]["RSXFS"]
    snap = parts_payload["data"]["series"]["RSXFS"]
    assert p["observation_date"] == "2026-10-01" and p["value"] == snap["last"] and p["prior_value"] == snap["prior"]
    assert p["change"] == pytest.approx(round(snap["last"] - snap["prior"], 3), abs=1e-3)
    claims = recent["Initial jobless claims"]
    assert claims["printed"]["ICSA"]["observation_date"] == "2026-11-14"
    # the UMich preliminary for November (released 2026-11-13) is not in these constructed data
    umich = recent["UMich consumer sentiment (preliminary)"]
    assert umich["printed"]["UMCSENT"] is None and "not in the warehouse" in umich["printed_note"]
    assert "RSXFS for 2026-10 printed" in parts_payload["summary"]


def test_snapshot_against_hand_computation():
    dates = month_starts(3, date(2026, 10, 1))
    frames = make_frames({"UNRATE": series(dates, [4.1, 4.3, 4.2]), "PAYEMS": series(dates, [100.0, 150.0, 120.0])},
                         NOW)
    d = mod.compute(frames)["data"]["series"]
    assert d["UNRATE"]["last"] == 4.2 and d["UNRATE"]["prior"] == 4.3 and d["UNRATE"]["change_pp"] == -0.1
    assert d["PAYEMS"]["change"] == -30.0 and d["PAYEMS"]["change_pct"] == -20.0


def test_high_urgency_two_days_before_payrolls_and_fomc():
    payload = build(now=date(2026, 12, 2))
    check_payload(payload)
    sig = {s["name"]: s for s in payload["signals"]}
    assert sig["release_risk"]["urgency"] == "high" and "2026-12-04" in sig["release_risk"]["reason"]
    payload = build(now=date(2026, 12, 7))
    sig = {s["name"]: s for s in payload["signals"]}
    assert sig["fomc_proximity"]["urgency"] == "high" and payload["data"]["next_fomc"]["days_until"] == 2


def test_missing_series_and_dates_outside_the_fomc_calendar():
    full = build()
    payload = build(drop=("PAYEMS", "FEDFUNDS"))
    check_payload(payload)
    d = payload["data"]
    assert "PAYEMS" in payload["data_sources"]["missing"] and d["unavailable"]["PAYEMS"]
    es = next(r for r in d["upcoming"] if r["event"].startswith("Employment"))
    assert es["last_values"]["PAYEMS"] is None and es["last_values"]["UNRATE"] is not None
    assert "missing inputs: PAYEMS, FEDFUNDS" in payload["summary"]
    conf = lambda p, n: next(s["confidence"] for s in p["signals"] if s["name"] == n)  # noqa: E731
    assert conf(payload, "fomc_proximity") < conf(full, "fomc_proximity")
    # before 2025 no FOMC date is stored: said, not guessed
    old = build(now=date(2019, 3, 4))
    check_payload(old)
    assert "next_fomc" not in old["data"] and "2019-03-04" in old["data"]["unavailable"]["next_fomc"]
    assert "next FOMC date is not known" in old["summary"]
    assert [s["name"] for s in old["signals"]] == ["release_risk"]


def test_no_data_at_all_raises_but_one_series_is_enough():
    with pytest.raises(InsufficientData):
        mod.compute(make_frames({}, NOW))
    payload = mod.compute(make_frames({"ICSA": series(weekly(10, date(2026, 11, 14)), range(10))}, NOW))
    check_payload(payload)
    assert payload["data"]["upcoming_count"] > 0 and list(payload["data"]["series"]) == ["ICSA"]
    assert len(payload["data_sources"]["missing"]) == len(mod.SERIES) - 1
    assert payload["signals"][0]["confidence"] < 0.6


def test_provenance_names_each_observation_and_no_series_for_calendar_numbers():
    payload = build()
    prov = expanded(payload["provenance"])
    assert prov["series.PAYEMS.last"]["inputs"] == [{"series": "PAYEMS", "dates": ["2026-10-01"]}]
    change = prov["series.PAYEMS.change"]
    assert change["attribution"] == "observation" and change["recompute"]["kind"] == "difference"
    assert change["inputs"] == [{"series": "PAYEMS", "dates": ["2026-10-01", "2026-09-01"]}]
    assert prov["upcoming_count"]["inputs"] == [] and "calendar events" in prov["upcoming_count"]["operation"]
    assert prov["next_fomc.days_until"]["inputs"] == []
    assert all(entry["attribution"] != "module" for entry in prov.values())
    assert "19 days away" in payload["signals"][-1]["reason"]  # a count reads as a whole number
