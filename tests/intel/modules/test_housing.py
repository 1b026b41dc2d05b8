from datetime import date

import numpy as np
import pandas as pd
import pytest
from builders import check_payload, make_frames, month_starts, series, weekly

from intel.envelope import InsufficientData
from intel.modules import housing

NOW = date(2024, 6, 28)


def _parts(rate_from=6.0, rate_to=7.0, price_growth=0.06, starts=None, n=130, seed=5):
    rng = np.random.default_rng(seed)
    weeks = weekly(600, NOW, weekday=3)
    # the rate sits at rate_from through 52 weeks ago, then climbs linearly to rate_to by the last week
    rate = np.concatenate([np.full(548, rate_from), np.linspace(rate_from, rate_to, 52)])
    starts = 1400 + rng.normal(0, 40, n) if starts is None else starts
    return {"HOUST": series(month_starts(n), starts), "HSN1F": series(month_starts(n), 0.6 * np.asarray(starts)),
            "MORTGAGE30US": series(weeks, rate),
            "CSUSHPINSA": series(month_starts(n, date(2024, 3, 1)), 250 * (1 + price_growth) ** (np.arange(n) / 12))}


def test_payment_formula_matches_amortization_tables():
    # standard amortization tables: 100k over 30 years costs 599.55 a month at 6% and 665.30 at 7%
    assert float(housing.payment(6.0)) == pytest.approx(599.55, abs=0.01)
    assert float(housing.payment(7.0)) == pytest.approx(665.30, abs=0.01)


def test_affordability_pressure_combines_rate_and_prices():
    payload = housing.compute(make_frames(_parts(), NOW))
    aff = payload["data"]["affordability"]
    assert aff["payment_per_100k_usd"] == pytest.approx(665.30, abs=0.01)
    assert aff["payment_per_100k_1y_ago_usd"] == pytest.approx(599.55, abs=0.01)
    expected = (1.06 * 665.30 / 599.55 - 1) * 100  # 17.63%: 6% dearer homes at a rate one point higher
    assert aff["payment_change_1y_pct"] == pytest.approx(expected, abs=0.02)
    assert aff["price_effect_1y_pct"] == pytest.approx(6.0, abs=0.01)
    assert aff["pressure"] == "high"
    sig = next(s for s in payload["signals"] if s["name"] == "affordability_pressure")
    assert sig["direction"] == "bearish" and sig["urgency"] == "medium"
    assert payload["data"]["mortgage_rate_30y"]["change_1y_bp"] == 100.0
    check_payload(payload)
    falling = housing.compute(make_frames(_parts(rate_from=7.5, rate_to=6.0, price_growth=0.0), NOW))
    assert falling["data"]["affordability"]["pressure"] == "easing"


def test_starts_three_month_average_against_pandas():
    parts = _parts()
    d = housing.compute(make_frames(parts, NOW))["data"]["housing_starts"]
    s = pd.Series(parts["HOUST"]["value"].to_list())
    avg = s.rolling(3).mean()
    assert d["avg_3m_thousands_saar"] == pytest.approx(round(avg.iloc[-1], 1))
    assert d["avg_3m_yoy_pct"] == pytest.approx(round((avg.iloc[-1] / avg.iloc[-13] - 1) * 100, 2))
    assert d["yoy_pct"] == pytest.approx(round(s.pct_change(12).iloc[-1] * 100, 2))
    assert d["period"] == "2024-05"


def test_collapsing_starts_are_bearish():
    n = 130
    starts = np.concatenate([np.full(n - 6, 1500.0), np.linspace(1300, 900, 6)])
    payload = housing.compute(make_frames(_parts(starts=starts), NOW))
    sig = next(s for s in payload["signals"] if s["name"] == "housing_activity")
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    check_payload(payload)


def test_missing_prices_and_stale_starts_degrade():
    parts = _parts()
    full = housing.compute(make_frames(parts, NOW))
    payload = housing.compute(make_frames({k: v for k, v in parts.items() if k != "CSUSHPINSA"}, NOW))
    aff = payload["data"]["affordability"]
    assert "payment_change_1y_pct" not in aff and "payment_change_1y_pct" in payload["data"]["unavailable"]
    assert aff["rate_effect_1y_pct"] is not None  # the rate's part still stands
    assert "missing inputs: CSUSHPINSA" in payload["summary"]
    assert not any(s["name"] == "affordability_pressure" for s in payload["signals"])
    check_payload(payload)
    stale = housing.compute(make_frames(dict(parts, HOUST=parts["HOUST"].head(125)), NOW))
    assert "stale inputs: HOUST" in stale["summary"]
    conf = lambda p: next(s["confidence"] for s in p["signals"] if s["name"] == "housing_activity")  # noqa: E731
    assert conf(stale) < conf(full)
    short = housing.compute(make_frames({k: v.tail(4) for k, v in parts.items()}, NOW))
    assert short["data"]["housing_starts"]["yoy_pct"] is None
    check_payload(short)
    with pytest.raises(InsufficientData):
        housing.compute(make_frames({}, NOW))
