from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, month_starts, series, weekly

from intel.envelope import InsufficientData
from intel.modules import liquidity


def _pd(frame):
    return pd.Series(frame["value"].to_list(), index=frame["date"].to_list())


def _market(walcl_path, rrp_path, m2_growth=0.004, n_weeks=300, n_days=1500, n_months=60):
    wed, days = weekly(n_weeks, NOW, weekday=2), bdays(n_days)
    return {"WALCL": series(wed, walcl_path(np.arange(n_weeks))),
            "RRPONTSYD": series(days, rrp_path(np.arange(n_days))),
            "M2SL": series(month_starts(n_months), 20000 * (1 + m2_growth) ** np.arange(n_months)),
            "WM2NS": series(weekly(n_weeks, NOW - timedelta(days=20), weekday=0),
                            20000 * (1 + m2_growth) ** (np.arange(n_weeks) * 12 / 52))}


def test_net_liquidity_units_and_m2_growth_by_hand():
    walcl = lambda k: 7_000_000 + 2_000 * k  # millions of dollars: +2 bn a week  # noqa: E731
    rrp = lambda k: 500 + 0.1 * k  # billions  # noqa: E731
    parts = _market(walcl, rrp)
    payload = liquidity.compute(make_frames(parts))
    d = payload["data"]
    last_wed = parts["WALCL"]["date"][-1]
    rrp_frame = _pd(parts["RRPONTSYD"])
    rrp_then = rrp_frame[rrp_frame.index <= last_wed].iloc[-1]
    walcl_bn = parts["WALCL"]["value"][-1] / 1000
    assert d["fed_balance_sheet"]["total_assets_bn"] == pytest.approx(round(walcl_bn, 1))
    assert d["net_liquidity"]["level_bn"] == pytest.approx(round(walcl_bn - rrp_then, 1))
    # 13 weeks earlier: 26 bn more balance sheet; reverse repo 91 calendar days = 65 business days earlier
    rrp_13w = rrp_frame[rrp_frame.index <= last_wed - timedelta(days=91)].iloc[-1]
    assert d["net_liquidity"]["change_13w_bn"] == pytest.approx(round(26 - (rrp_then - rrp_13w), 1))
    m2 = _pd(parts["M2SL"])
    assert d["m2"]["yoy_pct"] == pytest.approx(round(m2.pct_change(12).iloc[-1] * 100, 2))
    assert d["m2"]["annualized_3m_pct"] == pytest.approx(round(((m2.iloc[-1] / m2.iloc[-4]) ** 4 - 1) * 100, 2))
    assert d["m2_weekly_nsa"]["yoy_pct"] == pytest.approx(round((1.004 ** 12 - 1) * 100, 2), abs=0.01)
    assert d["m2_growth_yoy_pct"] == d["m2"]["yoy_pct"]
    assert payload["data_sources"]["missing"] == []
    check_payload(payload)


def test_draining_liquidity_is_bearish_and_expansion_bullish():
    draining = liquidity.compute(make_frames(_market(lambda k: 8_000_000 * 0.993 ** k, lambda k: 100 + 0 * k,
                                                     m2_growth=-0.003)))
    sig = draining["signals"][0]
    assert draining["data"]["net_liquidity"]["change_13w_pct"] < -5 and draining["data"]["m2"]["yoy_pct"] < -2
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    check_payload(draining)
    growing = liquidity.compute(make_frames(_market(lambda k: 4_000_000 * 1.004 ** k, lambda k: 300 - 0.1 * k)))
    assert growing["signals"][0]["direction"] == "bullish"
    assert growing["data"]["net_liquidity"]["change_13w_pct"] > 1


def test_missing_reverse_repo_and_stale_balance_sheet_degrade():
    parts = _market(lambda k: 7_000_000 + 2_000 * k, lambda k: 500 + 0.1 * k)
    full = liquidity.compute(make_frames(parts))
    no_rrp = liquidity.compute(make_frames({k: v for k, v in parts.items() if k != "RRPONTSYD"}))
    assert "net_liquidity" not in no_rrp["data"] and "net_liquidity" in no_rrp["data"]["unavailable"]
    assert no_rrp["data_sources"]["missing"] == ["RRPONTSYD"]
    assert "missing inputs: RRPONTSYD" in no_rrp["summary"]
    # the signal falls back to the balance sheet alone, with less confidence
    assert "Fed balance sheet" in no_rrp["signals"][0]["reason"]
    assert no_rrp["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(no_rrp)
    stale = dict(parts, WALCL=parts["WALCL"].head(parts["WALCL"].height - 6))  # six weeks old
    payload = liquidity.compute(make_frames(stale))
    assert "stale inputs: WALCL" in payload["summary"]
    assert payload["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(payload)


def test_short_history_and_no_inputs():
    parts = _market(lambda k: 7_000_000 + 2_000 * k, lambda k: 500 + 0.1 * k, n_weeks=5, n_days=20, n_months=4)
    payload = liquidity.compute(make_frames(parts))
    assert payload["data"]["m2"]["yoy_pct"] is None and payload["data"]["net_liquidity"]["change_13w_bn"] is None
    assert "m2_growth_yoy_pct" in payload["data"]["unavailable"]
    check_payload(payload)
    with pytest.raises(InsufficientData):
        liquidity.compute(make_frames({}))
