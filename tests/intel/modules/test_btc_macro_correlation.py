import numpy as np
import pandas as pd
import pytest
from builders import bdays, cdays, check_payload, make_frames, series, to_pandas

from intel.envelope import InsufficientData
from intel.modules import btc_macro_correlation as bmc


def build(n_cal=1100, seed=12, nasdaq_drift=0.0, beta=2.0):
    """BTC on every calendar day = beta x log Nasdaq (held over weekends) - 3%/bp x 10y yield + own noise;
    the dollar and breakevens are independent."""
    rng = np.random.default_rng(seed)
    cal = cdays(n_cal)
    bus = [d for d in bdays(n_cal) if d >= cal[0]]
    n = len(bus)
    log_nq = np.log(15000) + np.cumsum(rng.normal(nasdaq_drift, 0.012, n))
    y10 = 4.0 + np.cumsum(rng.normal(0, 0.06, n))
    usd = 120 * np.exp(np.cumsum(rng.normal(0, 0.004, n)))
    bei = 2.3 + np.cumsum(rng.normal(0, 0.03, n))
    idx = np.searchsorted(np.array(bus, dtype="datetime64[D]"), np.array(cal, dtype="datetime64[D]"), side="right") - 1
    ok = idx >= 0
    cal = [d for d, k in zip(cal, ok) if k]
    idx = idx[ok]
    log_btc = np.log(30000) + beta * (log_nq[idx] - log_nq[0]) - 0.03 * (y10[idx] - y10[0]) \
        + np.cumsum(rng.normal(0, 0.02, len(cal)))
    parts = {"CBBTCUSD": series(cal, np.exp(log_btc)), "NASDAQCOM": series(bus, np.exp(log_nq)),
             "DGS10": series(bus, y10), "DTWEXBGS": series(bus, usd), "T10YIE": series(bus, bei)}
    return parts


def reference(parts, sid, kind, w):
    """Independent pandas route: join levels on common dates, change between them, last-w window stats."""
    b = to_pandas(parts["CBBTCUSD"])
    x = to_pandas(parts[sid])
    j = pd.concat([b, x], axis=1, join="inner").sort_index()
    rb = np.log(j.iloc[:, 0]).diff() * 100
    rx = (np.log(j.iloc[:, 1]).diff() if kind == "log" else j.iloc[:, 1].diff()) * 100
    rb, rx = rb.dropna().tail(w), rx.dropna().tail(w)
    return rb.corr(rx), np.polyfit(rx, rb, 1)[0]


def test_correlations_and_betas_match_pandas_on_common_dates():
    parts = build()
    payload = bmc.compute(make_frames(parts))
    d = payload["data"]
    for sid, kind, unit in (("NASDAQCOM", "log", "pct_per_pct"), ("DGS10", "bp", "pct_per_bp"),
                            ("DTWEXBGS", "log", "pct_per_pct")):
        for label, w in (("63d", 63), ("1y", 252)):
            c, beta = reference(parts, sid, kind, w)
            assert d[sid][f"correlation_{label}"] == pytest.approx(round(c, 3), abs=1e-3), (sid, label)
            assert d[sid][f"beta_{label}_{unit}"] == pytest.approx(round(beta, 3), abs=1e-3), (sid, label)
    # the construction: about 2% of bitcoin per 1% of Nasdaq, about -3% per bp of the 10-year yield
    assert d["NASDAQCOM"]["beta_1y_pct_per_pct"] == pytest.approx(2.0, abs=0.5)
    assert d["DGS10"]["beta_1y_pct_per_bp"] == pytest.approx(-0.03, abs=0.02)
    assert d["strongest_driver_63d"] == "NASDAQCOM"
    # percentile over the history of rolling 63-day correlations
    b = to_pandas(parts["CBBTCUSD"])
    x = to_pandas(parts["NASDAQCOM"])
    j = pd.concat([b, x], axis=1, join="inner")
    r = np.log(j).diff().dropna()
    roll = r.iloc[:, 0].rolling(63).corr(r.iloc[:, 1]).dropna().to_numpy()
    percentile = round((roll <= roll[-1]).mean() * 100, 1)
    assert d["NASDAQCOM"]["correlation_63d_percentile"] == pytest.approx(percentile, abs=0.2)
    check_payload(payload)


def test_coupled_driver_falling_reads_through_as_bearish():
    parts = build(seed=3)
    nq = parts["NASDAQCOM"]
    values = nq["value"].to_numpy().copy()
    values[-21:] *= np.linspace(1, 0.85, 21)  # the Nasdaq falls 15% over the last month
    parts["NASDAQCOM"] = series(nq["date"].to_list(), values)
    btc = parts["CBBTCUSD"]
    # bitcoin follows it with beta 2 (on the same calendar days, weekends held)
    cal = np.array(btc["date"].to_list(), dtype="datetime64[D]")
    bus = np.array(nq["date"].to_list(), dtype="datetime64[D]")
    factor = np.linspace(1, 0.85, 21) ** 2
    f = np.ones(len(cal))
    idx = np.searchsorted(bus, cal, side="right") - 1
    mask = idx >= len(bus) - 21
    f[mask] = factor[idx[mask] - (len(bus) - 21)]
    parts["CBBTCUSD"] = series(btc["date"].to_list(), btc["value"].to_numpy() * f)
    payload = bmc.compute(make_frames(parts))
    sig = {s["name"]: s for s in payload["signals"]}["btc_nasdaqcom_coupling"]
    assert payload["data"]["NASDAQCOM"]["driver_change_1m_pct"] < -10
    assert sig["direction"] == "bearish"
    check_payload(payload)


def test_decoupled_bitcoin_gives_a_neutral_signal():
    payload = bmc.compute(make_frames(build(seed=5, beta=0.0)))
    assert [s["name"] for s in payload["signals"]] == ["btc_macro_decoupled"]
    assert payload["signals"][0]["direction"] == "neutral"
    check_payload(payload)


def test_missing_driver_degrades_and_no_driver_is_insufficient():
    parts = build()
    full = bmc.compute(make_frames(parts))
    partial = bmc.compute(make_frames({k: v for k, v in parts.items() if k != "T10YIE"}))
    assert "T10YIE" not in partial["data"] and partial["data"]["unavailable"]["T10YIE"] == "T10YIE missing"
    assert partial["data"]["NASDAQCOM"] == full["data"]["NASDAQCOM"]
    assert "missing inputs: T10YIE" in partial["summary"]
    assert partial["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(partial)
    with pytest.raises(InsufficientData):
        bmc.compute(make_frames({"CBBTCUSD": parts["CBBTCUSD"]}))
    with pytest.raises(InsufficientData):
        bmc.compute(make_frames({k: v for k, v in parts.items() if k != "CBBTCUSD"}))


def test_short_history_gives_63d_only():
    parts = {k: v.tail(150 if k == "CBBTCUSD" else 100) for k, v in build().items()}
    payload = bmc.compute(make_frames(parts))
    nq = payload["data"]["NASDAQCOM"]
    assert nq["correlation_63d"] is not None and nq["correlation_1y"] is None
    assert nq["correlation_63d_percentile"] is None  # too few rolling values to rank
    assert "NASDAQCOM.1y" in payload["data"]["unavailable"]
    check_payload(payload)
