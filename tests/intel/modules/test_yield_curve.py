from datetime import date

import pytest
from builders import NOW, bdays, check_payload, make_frames, series

from intel.envelope import InsufficientData
from intel.modules import yield_curve

LEVELS = {"DGS1MO": 5.40, "DGS3MO": 5.45, "DGS6MO": 5.35, "DGS1": 5.10, "DGS2": 4.70, "DGS3": 4.50,
          "DGS5": 4.30, "DGS7": 4.28, "DGS10": 4.25, "DGS20": 4.50, "DGS30": 4.40}


def _curve(n=500, ten_before=5.0, switch_at=380):
    dates = bdays(n)
    parts = {sid: series(dates, [lvl] * n) for sid, lvl in LEVELS.items()}
    # 10y above the 2y until `switch_at`, then below it: the 2s10s inversion starts on that date
    parts["DGS10"] = series(dates, [ten_before] * switch_at + [LEVELS["DGS10"]] * (n - switch_at))
    return dates, parts


def test_slopes_butterfly_and_inversion_duration():
    dates, parts = _curve()
    payload = yield_curve.compute(make_frames(parts))
    data = payload["data"]
    assert data["curve_pct"]["10y"] == 4.25 and data["curve_pct"]["1m"] == 5.4
    assert data["slopes"]["2s10s_bp"] == pytest.approx(-45.0)
    assert data["slopes"]["3m10y_bp"] == pytest.approx(-120.0)
    assert data["slopes"]["5s30s_bp"] == pytest.approx(10.0)
    assert data["slopes"]["butterfly_2s5s10s_bp"] == pytest.approx((2 * 4.30 - 4.70 - 4.25) * 100)
    inv = data["inversion"]["2s10s"]
    assert inv["inverted"] and inv["inverted_since"] == dates[380].isoformat()
    assert inv["inversion_duration_days"] == (dates[-1] - dates[380]).days
    share = sum(1 for d in dates[380:] if (NOW - d).days < 365) / sum(1 for d in dates if (NOW - d).days < 365)
    assert inv["share_inverted_1y_pct"] == pytest.approx(round(share * 100, 1))
    assert data["shape"] == "inverted"
    assert payload["signals"][0]["direction"] == "bearish"
    check_payload(payload)


def test_last_inversion_end_when_positive_again():
    dates = bdays(300)
    parts = {"DGS2": series(dates, [4.0] * 300),
             "DGS10": series(dates, [4.5] * 100 + [3.9] * 100 + [4.3] * 100),
             "DGS3MO": series(dates, [4.1] * 300)}
    data = yield_curve.compute(make_frames(parts))["data"]
    assert not data["inversion"]["2s10s"]["inverted"]
    assert data["inversion"]["2s10s"]["last_inversion_ended"] == dates[200].isoformat()
    assert data["slopes"]["2s10s_change_1m_bp"] == 0.0


def test_missing_and_stale_tenors():
    dates, parts = _curve()
    del parts["DGS20"]
    old = bdays(400, end=date(2024, 3, 1))
    parts["DGS30"] = series(old, [4.4] * 400)
    payload = yield_curve.compute(make_frames(parts))
    src = payload["data_sources"]
    assert src["missing"] == ["DGS20"]
    assert [s["id"] for s in src["series"] if s["stale"]] == ["DGS30"]
    assert "stale inputs: DGS30" in payload["summary"]
    check_payload(payload)
    with pytest.raises(InsufficientData):
        yield_curve.compute(make_frames({"DGS2": parts["DGS2"]}))


def test_a_slope_with_a_stale_leg_is_dated_and_does_not_lead():
    # the 3-month yield stopped at the end of 2023 (inverted against the 10-year then) while the 2-year and
    # 10-year run on to NOW with a positive 2s10s: the lead signal must come from the fresh 2s10s
    dates = bdays(500)
    parts = {"DGS2": series(dates, [4.0] * 500), "DGS10": series(dates, [4.5] * 500)}
    old = [d for d in dates if d <= date(2023, 12, 29)]
    parts["DGS3MO"] = series(old, [5.4] * len(old))
    payload = yield_curve.compute(make_frames(parts))
    data = payload["data"]
    assert data["slopes"]["3m10y_bp"] == pytest.approx(-90.0)
    assert data["slopes"]["3m10y_as_of"] == "2023-12-29" and data["slopes"]["3m10y_stale"] is True
    assert data["slopes"]["2s10s_as_of"] == NOW.isoformat() and data["slopes"]["2s10s_stale"] is False
    lead = payload["signals"][0]
    assert lead["name"] == "curve_inversion" and lead["direction"] == "neutral" and "2s10s" in lead["reason"]
    assert "3m10y has been inverted since" not in payload["summary"]
    assert "as of 2023-12-29" in payload["summary"]
    check_payload(payload)


def test_legs_a_week_apart_make_a_stale_slope_even_before_the_leg_counts_as_stale():
    # the 3-month yield last printed 4 business days before NOW (not yet stale by series_status) while the
    # 10-year is current: the legs are more than 3 business days apart, so 3m10y is stale and does not lead
    dates = bdays(300)
    parts = {"DGS2": series(dates, [4.0] * 300), "DGS10": series(dates, [4.5] * 300),
             "DGS3MO": series(dates[:-4], [5.4] * 296)}
    payload = yield_curve.compute(make_frames(parts))
    assert not [s for s in payload["data_sources"]["series"] if s["stale"]]
    assert payload["data"]["slopes"]["3m10y_stale"] is True
    assert payload["signals"][0]["direction"] == "neutral"


def test_butterfly_with_a_stale_leg_is_flagged_and_does_not_shape_the_curve():
    # 2s10s flat (5 bp) and a 5-year that stopped at the end of 2023 far above both: the butterfly mixes a
    # 2023 5-year with today's 2-year and 10-year, so it must not make the curve "humped"
    dates = bdays(500)
    old = [d for d in dates if d <= date(2023, 12, 29)]
    parts = {"DGS2": series(dates, [4.0] * 500), "DGS10": series(dates, [4.05] * 500),
             "DGS3MO": series(dates, [3.9] * 500), "DGS5": series(old, [4.5] * len(old))}
    data = yield_curve.compute(make_frames(parts))["data"]
    assert data["slopes"]["butterfly_2s5s10s_bp"] == pytest.approx(95.0)
    assert data["slopes"]["butterfly_2s5s10s_stale"] is True
    assert data["shape"] == "flat"
