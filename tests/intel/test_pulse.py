import re
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent / "modules"))
from builders import _finite_everywhere, bdays, make_frames, market, random_walk, series  # noqa: E402

from intel.correlations import BREAK_THRESHOLD, correlation_breaks, rolling_corr  # noqa: E402
from intel.pulse import PULSE_INPUTS, compute_pulse  # noqa: E402

PREMIUM = [("market_regime", 250), ("risk_dashboard", 250)]


def test_pulse_shape_and_ranges():
    pulse = compute_pulse(make_frames(market("calm")), PREMIUM)
    assert set(pulse["signals"]) == {"equities", "bonds", "crypto", "volatility", "fx"}
    for sig in pulse["signals"].values():
        assert sig["direction"] in ("bullish", "bearish", "neutral") and 0 <= sig["confidence"] <= 1
        assert sig["key_figures"] and sig["cross_market"]
    assert pulse["regime"]["state"] == "risk_on" and pulse["regime"]["rationale"]
    assert -100 <= pulse["composite_score"] <= 100 and pulse["composite_method"]
    assert "_meta" not in pulse and pulse["as_of"] == "2024-06-28"
    ids = {s["id"] for s in pulse["data_sources"]["series"]} | set(pulse["data_sources"]["missing"])
    assert ids == set(PULSE_INPUTS)
    _finite_everywhere(pulse)
    orjson.dumps(pulse)


def test_teasers_have_no_numbers_and_carry_price():
    pulse = compute_pulse(make_frames(market("crisis")), PREMIUM)
    assert [t["module"] for t in pulse["premium_teasers"]] == ["market_regime", "risk_dashboard"]
    assert all(t["price_sats"] == 250 and not re.search(r"\d", t["teaser"]) for t in pulse["premium_teasers"])
    assert pulse["composite_score"] < -50 and pulse["regime"]["state"] == "crisis"


def test_correlation_break_is_found_and_dated():
    n, brk = 700, 640
    rng = np.random.default_rng(5)
    common, a, b = rng.normal(0, 0.01, n), rng.normal(0, 0.01, n), rng.normal(0, 0.01, n)
    # before `brk` the two move opposite ways; after it, together
    sign = np.where(np.arange(n) < brk, -1.0, 1.0)
    x, y = common + 0.3 * a, sign * common + 0.3 * b
    dates = bdays(n + 1)
    parts = {"SP500": series(dates, 3000 * np.exp(np.concatenate([[0], np.cumsum(x)]))),
             "DGS10": series(dates, 4 + np.concatenate([[0], np.cumsum(y)]))}
    out = correlation_breaks(make_frames(parts))
    assert out["pairs_checked"] == 1 and len(out["alerts"]) == 1
    alert = out["alerts"][0]
    recent = np.corrcoef(x[-63:], y[-63:])[0, 1]
    base = np.corrcoef(x[-63 - 252:-63], y[-63 - 252:-63])[0, 1]
    assert alert["correlation_63d"] == pytest.approx(round(recent, 3))
    assert alert["baseline_1y"] == pytest.approx(round(base, 3))
    assert alert["change"] >= BREAK_THRESHOLD and alert["direction"] == "correlation rose"
    since = np.datetime64(alert["since"])
    assert np.datetime64(dates[brk + 1]) <= since < np.datetime64(dates[-1])  # change i ends on dates[i + 1]
    assert alert["days_broken"] == sum(1 for d in dates if np.datetime64(d) >= since)


def test_rolling_corr_matches_numpy():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=100), rng.normal(size=100)
    r = rolling_corr(x, y, 20)
    assert np.isnan(r[:19]).all()
    assert r[50] == pytest.approx(np.corrcoef(x[31:51], y[31:51])[0, 1])


def test_missing_classes_are_marked():
    parts = market("calm")
    del parts["CBBTCUSD"]
    pulse = compute_pulse(make_frames(parts), [])  # its speed is in bench/compute.py
    crypto = pulse["signals"]["crypto"]
    assert crypto["unavailable"] and crypto["score"] is None and crypto["confidence"] == 0
    assert "CBBTCUSD" in pulse["data_sources"]["missing"]


def test_pair_changes_span_the_same_dates_for_both_series():
    """Bitcoin trades at weekends: its Monday change must run from Friday, as the S&P 500's does."""
    from builders import cdays

    from intel.correlations import pair_changes

    days = cdays(120)
    btc = random_walk(len(days), 30000, 0.03, 4)
    spx_days = [d for d in days if d.weekday() < 5]
    spx = [btc[days.index(d)] / 10 for d in spx_days]  # the same path, seen on weekdays only
    frames = make_frames({"CBBTCUSD": series(days, btc), "SP500": series(spx_days, spx)})
    common, x, y = pair_changes(frames, "CBBTCUSD", "log", "SP500", "log", 500)
    assert len(common) == len(spx_days) - 1
    assert np.allclose(x, y) and np.corrcoef(x, y)[0, 1] > 0.999999


def test_dollar_move_from_the_euro_quote_is_exact():
    # no broad index: the dollar's move comes from DEXUSEU (dollars per euro); up 25% is a 20% weaker dollar
    dates = bdays(300)
    eur = np.where(np.arange(300) < 280, 1.00, 1.25)
    pulse = compute_pulse(make_frames({"DEXUSEU": series(dates, eur)}), PREMIUM)
    assert pulse["signals"]["fx"]["key_figures"]["dollar_change_1m_pct"] == pytest.approx(-20.0)
