from datetime import date

import numpy as np
import pytest
from builders import bdays, check_payload, make_frames, series

from intel.modules import fx_overview


def test_usd_moves_invert_dollar_quoted_pairs_and_skip_stale():
    dates = bdays(300)
    eur = np.linspace(1.00, 1.10, 300)  # euro up: dollar down
    jpy = np.linspace(140, 150, 300)  # dollar up against the yen
    old = bdays(300, end=date(2024, 3, 1))
    payload = fx_overview.compute(make_frames({"DEXUSEU": series(dates, eur), "DEXJPUS": series(dates, jpy),
                                               "DEXMXUS": series(old, np.linspace(17, 18, 300))}))
    data = payload["data"]
    eur_1m = data["pairs"]["EURUSD"]["change_1m_pct"]
    usd_1m = data["pairs"]["EURUSD"]["usd_change_1m_pct"]  # the exact inverse of the euro's move
    assert usd_1m < 0 and usd_1m == pytest.approx((1 / (1 + eur_1m / 100) - 1) * 100, abs=0.011)
    assert data["pairs"]["USDJPY"]["usd_change_1m_pct"] == data["pairs"]["USDJPY"]["change_1m_pct"] > 0
    assert data["pairs"]["USDMXN"]["stale"] and data["pairs_used_in_average"] == ["EURUSD", "USDJPY"]
    expected = np.mean([data["pairs"]["EURUSD"]["usd_change_1m_pct"], data["pairs"]["USDJPY"]["usd_change_1m_pct"]])
    assert data["usd_vs_fresh_pairs_avg_change_1m_pct"] == pytest.approx(round(expected, 2))
    assert data["strongest_vs_usd"] == "EURUSD"
    assert "DTWEXBGS" in payload["data_sources"]["missing"]
    check_payload(payload)


def test_broad_dollar_leads_the_signal():
    dates = bdays(300)
    payload = fx_overview.compute(make_frames({"DTWEXBGS": series(dates, np.linspace(110, 125, 300))}))
    assert payload["signals"][0]["direction"] == "bullish"
    assert payload["data"]["usd_vs_fresh_pairs_avg_change_1m_pct"] is None
    check_payload(payload)


def test_usd_move_against_a_dollar_quoted_pair_is_exact_not_the_negated_change():
    # the euro rises 25% in a month (1.00 -> 1.25 dollars): a euro then costs 1.25 dollars, so a dollar buys
    # 0.8 euros, a 20% fall; negating the quote change would say -25%
    dates = bdays(300)
    eur = np.where(np.arange(300) < 280, 1.00, 1.25)
    data = fx_overview.compute(make_frames({"DEXUSEU": series(dates, eur)}))["data"]
    row = data["pairs"]["EURUSD"]
    assert row["change_1m_pct"] == 25.0
    assert row["usd_change_1m_pct"] == -20.0
    assert data["usd_vs_fresh_pairs_avg_change_1m_pct"] == -20.0
