from datetime import date

import numpy as np
import pandas as pd
import pytest
from builders import check_payload, make_frames, month_starts, series

from intel.envelope import InsufficientData
from intel.modules import consumer

NOW = date(2024, 6, 20)


def _parts(n=150, sales_growth=0.006, cpi_growth=0.002, sentiment=None, mich=None, seed=3):
    rng = np.random.default_rng(seed)
    months = month_starts(n)
    sentiment = 80 + rng.normal(0, 5, n) if sentiment is None else sentiment
    mich = 3 + rng.normal(0, 0.3, n) if mich is None else mich
    sales = 400_000 * np.cumprod(1 + np.full(n, sales_growth) + rng.normal(0, 0.002, n))
    return {"UMCSENT": series(months, sentiment), "MICH": series(months, mich), "RSXFS": series(months, sales),
            "CPIAUCSL": series(months, 250 * (1 + cpi_growth) ** np.arange(n))}


def test_real_retail_sales_and_survey_stats_by_hand():
    parts = _parts()
    payload = consumer.compute(make_frames(parts, NOW))
    d = payload["data"]
    sales = pd.Series(parts["RSXFS"]["value"].to_list())
    cpi = pd.Series(parts["CPIAUCSL"]["value"].to_list())
    real = sales / cpi
    rs = d["retail_sales"]
    assert rs["trend_basis"] == "real" and rs["real_period"] == "2024-05"
    assert rs["real_yoy_pct"] == pytest.approx(round(real.pct_change(12).iloc[-1] * 100, 2))
    assert rs["real_annualized_3m_pct"] == pytest.approx(round(((real.iloc[-1] / real.iloc[-4]) ** 4 - 1) * 100, 2))
    assert rs["nominal_yoy_pct"] == pytest.approx(round(sales.pct_change(12).iloc[-1] * 100, 2))
    # real growth = nominal growth deflated by CPI's own year-on-year growth
    cpi_yoy = 1.002 ** 12
    assert rs["real_yoy_pct"] == pytest.approx(((1 + rs["nominal_yoy_pct"] / 100) / cpi_yoy - 1) * 100, abs=0.01)
    sent = np.array(parts["UMCSENT"]["value"].to_list())
    history = sent[-120:]
    assert d["sentiment"]["zscore_10y"] == pytest.approx(round((sent[-1] - history.mean()) / history.std(ddof=1), 2))
    assert d["sentiment"]["change_1m_pts"] == pytest.approx(round(sent[-1] - sent[-2], 2))
    exp = d["inflation_expectations_1y"]
    assert exp["cpi_yoy_pct"] == pytest.approx(round((1.002 ** 12 - 1) * 100, 2))
    assert exp["gap_to_cpi_yoy_pp"] == pytest.approx(round(parts["MICH"]["value"][-1] - (1.002 ** 12 - 1) * 100, 2))
    check_payload(payload)


def test_collapsing_consumer_is_bearish_and_high_inflation_expectations_flagged():
    n = 150
    sentiment = np.concatenate([np.full(n - 6, 90.0), np.linspace(88, 55, 6)])
    mich = np.concatenate([np.full(n - 6, 3.0), np.linspace(3.5, 5.4, 6)])
    parts = _parts(n, sentiment=sentiment, mich=mich)
    sales = parts["RSXFS"]["value"].to_numpy().copy()
    sales[-3:] = sales[-4] * np.array([0.98, 0.96, 0.94])
    parts["RSXFS"] = series(parts["RSXFS"]["date"], sales)
    payload = consumer.compute(make_frames(parts, NOW))
    health, expectations = payload["signals"]
    assert health["name"] == "consumer_health" and health["direction"] == "bearish" and health["urgency"] == "high"
    assert payload["data"]["consumer_score"] < -0.6
    assert expectations["direction"] == "bearish" and expectations["urgency"] == "high"
    check_payload(payload)
    calm = consumer.compute(make_frames(_parts(sales_growth=0.008), NOW))
    assert calm["signals"][0]["direction"] == "bullish"


def test_without_cpi_sales_stay_nominal_and_say_so():
    parts = _parts()
    full = consumer.compute(make_frames(parts, NOW))
    payload = consumer.compute(make_frames({k: v for k, v in parts.items() if k != "CPIAUCSL"}, NOW))
    rs = payload["data"]["retail_sales"]
    assert rs["trend_basis"] == "nominal" and "real_yoy_pct" not in rs
    assert "real_retail_sales" in payload["data"]["unavailable"]
    assert "nominal only" in payload["summary"] and "missing inputs: CPIAUCSL" in payload["summary"]
    assert payload["data"]["inflation_expectations_1y"]["gap_to_cpi_yoy_pp"] is None
    assert payload["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(payload)


def test_stale_sentiment_short_history_and_nothing():
    parts = _parts()
    full = consumer.compute(make_frames(parts, NOW))
    stale = dict(parts, UMCSENT=parts["UMCSENT"].head(140))  # ten months old
    payload = consumer.compute(make_frames(stale, NOW))
    assert "stale inputs: UMCSENT" in payload["summary"]
    assert payload["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    short = consumer.compute(make_frames({k: v.tail(5) for k, v in parts.items()}, NOW))
    assert short["data"]["sentiment"]["zscore_10y"] is None and short["data"]["retail_sales"]["real_yoy_pct"] is None
    check_payload(short)
    with pytest.raises(InsufficientData):
        consumer.compute(make_frames({"CPIAUCSL": parts["CPIAUCSL"]}, NOW))
