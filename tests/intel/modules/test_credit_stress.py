from datetime import date

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, random_walk, series, to_pandas

from intel.envelope import InsufficientData
from intel.modules import credit_stress

THEN = date(2012, 6, 29)  # a Friday, with the 2008 and 2011 windows behind it


def _fridays(start: date, end: date) -> list[date]:
    return [d.date() for d in pd.date_range(start, end, freq="W-FRI")]


def _market(n=1500, seed=2):
    dates, fridays = bdays(n), _fridays(bdays(n)[0], NOW)
    rng = np.random.default_rng(seed)
    return {"BAMLH0A0HYM2": series(dates, random_walk(n, 4.0, 0.015, seed)),
            "VIXCLS": series(dates, random_walk(n, 16.0, 0.04, seed + 1)),
            "ANFCI": series(fridays, np.cumsum(rng.normal(0, 0.05, len(fridays))) - 0.4),
            "STLFSI4": series(fridays, np.cumsum(rng.normal(0, 0.1, len(fridays))))}


def test_composite_matches_independent_pandas():
    parts = _market()
    payload = credit_stress.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    first = min(p["date"][0] for p in parts.values())
    grid = pd.date_range(first, NOW, freq="W-FRI")
    zs, now_z = {}, {}
    for sid, label in (("BAMLH0A0HYM2", "high_yield_oas"), ("ANFCI", "anfci"), ("STLFSI4", "stlfsi"),
                       ("VIXCLS", "vix")):
        s = to_pandas(parts[sid])
        on_grid = pd.merge_asof(pd.DataFrame({"date": grid}), s.rename("v").rename_axis("date").reset_index(),
                                on="date", tolerance=pd.Timedelta(days=10))["v"]
        logged = sid in ("BAMLH0A0HYM2", "VIXCLS")
        t = np.log(on_grid) if logged else on_grid
        last = np.log(s.iloc[-1]) if logged else s.iloc[-1]
        zs[sid] = ((t - t.mean()) / t.std(ddof=1)).to_numpy()
        now_z[sid] = (last - t.mean()) / t.std(ddof=1)
        assert d["components"][label]["zscore"] == pytest.approx(round(now_z[sid], 2))
    composite = np.mean(list(now_z.values()))
    history = pd.DataFrame(zs).mean(axis=1, skipna=True).dropna()
    assert d["composite_zscore"] == pytest.approx(round(composite, 2))
    assert d["stress_score_0_100"] == pytest.approx(round((history <= composite).mean() * 100, 1))
    assert d["history_weeks"] == len(history) and d["components_used"] == 4
    hy = to_pandas(parts["BAMLH0A0HYM2"])
    base = hy.asof(pd.Timestamp(date(2024, 5, 29)))
    assert d["spread_momentum"]["change_1m_bp"] == pytest.approx(round((hy.iloc[-1] - base) * 100, 1))
    # every episode from 2008 to 2020 lies before this history (it starts in 2018)
    assert not d["episodes"]["gfc_2008"]["available"]
    assert "outside the available history" in d["episodes"]["gfc_2008"]["reason"]


def _history_with_episodes(end_like: str):
    """Daily HY/VIX and weekly indices 2005-2012: a big spike in late 2008, a smaller one in autumn 2011,
    and the last weeks either calm or back at the 2011 or 2008 peak levels."""
    dates = bdays(int(np.busday_count(date(2005, 1, 3), THEN)) + 1, end=THEN)
    fridays = _fridays(date(2005, 1, 7), THEN)

    def shape(days, calm, gfc, euro, last):
        days = np.array(days, dtype="datetime64[D]")
        out = np.full(len(days), calm, dtype=float)
        out[(days >= np.datetime64("2008-10-01")) & (days <= np.datetime64("2008-12-31"))] = gfc
        out[(days >= np.datetime64("2011-09-01")) & (days <= np.datetime64("2011-10-31"))] = euro
        out[days >= np.datetime64("2012-06-01")] = last
        return out

    pick = {"calm": 0, "euro": 2, "gfc": 1}[end_like]
    levels = {"BAMLH0A0HYM2": (4.0, 18.0, 8.0), "VIXCLS": (15.0, 65.0, 40.0), "ANFCI": (-0.5, 2.5, 0.3),
              "STLFSI4": (-0.5, 5.0, 1.5)}
    out = {}
    rng = np.random.default_rng(4)
    for sid, (calm, gfc, euro) in levels.items():
        days = fridays if sid in ("ANFCI", "STLFSI4") else dates
        values = shape(days, calm, gfc, euro, (calm, gfc, euro)[pick])
        noise = rng.normal(0, 0.02, len(days)) * (abs(calm) + 0.5)
        out[sid] = series(days, values + noise)
    return out


def test_episodes_from_the_frames_and_resemblance():
    payload = credit_stress.compute(make_frames(_history_with_episodes("euro"), now=THEN))
    check_payload(payload)
    d = payload["data"]
    gfc, euro = d["episodes"]["gfc_2008"], d["episodes"]["euro_downgrade_2011"]
    assert gfc["available"] and "2008-10-01" <= gfc["peak_week"] <= "2008-12-31"
    assert gfc["peak_levels"]["high_yield_oas"] == pytest.approx(18.0, abs=0.5)
    assert euro["available"] and "2011-09-01" <= euro["peak_week"] <= "2011-10-31"
    assert d["resembles"] == ["euro_downgrade_2011"] and d["nearest_episode"] == "euro_downgrade_2011"
    assert euro["distance"] < gfc["distance"]
    # what came later is not named: no episode whose window had not ended at the as-of date (hindsight)
    assert set(d["episodes"]) == {"gfc_2008", "euro_downgrade_2011"}
    assert not any(name in payload["summary"] for name in ("Covid", "2015-16", "2022", "2023"))
    sig = {s["name"]: s for s in payload["signals"]}
    assert sig["credit_stress"]["direction"] == "bearish"
    assert sig["episode_resemblance"]["direction"] == "bearish"
    # inside the 2011 window its end, and that it would be remembered as an episode, were not known yet
    during = credit_stress.compute(make_frames(_history_with_episodes("euro"), now=date(2011, 10, 14)))
    assert set(during["data"]["episodes"]) == {"gfc_2008"} and "2011" not in during["summary"]


def test_crisis_levels_are_critical_and_calm_is_bullish():
    crisis = credit_stress.compute(make_frames(_history_with_episodes("gfc"), now=THEN))
    check_payload(crisis)
    assert crisis["data"]["regime"] == "crisis" and crisis["data"]["resembles"] == ["gfc_2008"]
    sig = {s["name"]: s for s in crisis["signals"]}
    assert sig["credit_stress"]["direction"] == "bearish" and sig["credit_stress"]["urgency"] == "critical"
    calm = credit_stress.compute(make_frames(_history_with_episodes("calm"), now=THEN))
    check_payload(calm)
    assert calm["data"]["regime"] in ("benign", "normal") and calm["data"]["resembles"] == []
    assert calm["signals"][0]["direction"] in ("bullish", "neutral") and calm["signals"][0]["urgency"] == "low"


def test_missing_and_short_inputs_degrade():
    parts = _market()
    full = credit_stress.compute(make_frames(parts))
    two = credit_stress.compute(make_frames({k: parts[k] for k in ("BAMLH0A0HYM2", "VIXCLS")}))
    check_payload(two)
    assert two["data"]["components_used"] == 2 and two["data_sources"]["missing"] == ["ANFCI", "STLFSI4"]
    assert {"anfci", "stlfsi"} <= set(two["data"]["unavailable"])
    assert two["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    no_hy = credit_stress.compute(make_frames({k: v for k, v in parts.items() if k != "BAMLH0A0HYM2"}))
    check_payload(no_hy)
    assert "spread_momentum" not in no_hy["data"] and "spread_momentum" in no_hy["data"]["unavailable"]
    with pytest.raises(InsufficientData):
        credit_stress.compute(make_frames({}))
    with pytest.raises(InsufficientData):  # ten days is not enough to standardise anything
        credit_stress.compute(make_frames({k: v.tail(10) for k, v in parts.items()}))
