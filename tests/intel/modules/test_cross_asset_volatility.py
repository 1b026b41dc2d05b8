import numpy as np
import pandas as pd
import pytest
from builders import bdays, cdays, check_payload, make_frames, market, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import cross_asset_volatility as cav


def _pandas_vol(values, n, per_year, kind="log"):
    s = pd.Series(values)
    change = np.log(s).diff() if kind == "log" else s.diff() * 100
    path = change.rolling(n).std().dropna()
    return (path * (np.sqrt(per_year) * 100 if kind == "log" else 1.0)).to_numpy()


def test_each_asset_matches_pandas():
    parts = market("calm", n=900)
    payload = cav.compute(make_frames(parts))
    d = payload["data"]
    for asset, sid, per_year in (("equities", "SP500", 252), ("fx", "DEXUSEU", 252), ("oil", "DCOILWTICO", 252),
                                 ("bitcoin", "CBBTCUSD", 365)):
        values = parts[sid]["value"].to_numpy()
        for n in (21, 63):
            path = _pandas_vol(values, n, per_year)
            assert d[asset][f"realized_vol_{n}d_pct"] == pytest.approx(round(path[-1], 2)), (asset, n)
            assert d[asset][f"percentile_{n}d_10y"] == pytest.approx(round((path <= path[-1]).mean() * 100, 1))
    rates = parts["DGS10"]["value"].to_numpy()
    bp = _pandas_vol(rates, 21, 252, kind="diff")
    assert d["rates"]["realized_vol_21d_bp_per_day"] == pytest.approx(round(bp[-1], 2))
    assert d["rates"]["realized_vol_21d_bp_annualised"] == pytest.approx(round(bp[-1] * np.sqrt(252), 1))
    assert d["rates"]["percentile_21d_10y"] == pytest.approx(round((bp <= bp[-1]).mean() * 100, 1))
    pcts = [d[a]["percentile_21d_10y"] for a in ("equities", "rates", "fx", "oil", "bitcoin")]
    assert d["cross_asset"]["mean_percentile_21d_10y"] == pytest.approx(round(np.mean(pcts), 1))
    assert d["cross_asset"]["assets_used"] == 5 and "unavailable" not in d
    check_payload(payload)


def test_bitcoin_uses_calendar_days_and_365_annualisation():
    days = cdays(400)
    btc = random_walk(400, 30000, 0.03, seed=8)
    payload = cav.compute(make_frames({"CBBTCUSD": series(days, btc)}))
    rets = np.diff(np.log(btc))[-21:]
    assert payload["data"]["bitcoin"]["realized_vol_21d_pct"] == pytest.approx(
        round(rets.std(ddof=1) * np.sqrt(365) * 100, 2))
    check_payload(payload)


def test_broad_volatility_spike_is_bearish():
    n = 700
    dates, days = bdays(n), cdays(n)
    rng = np.random.default_rng(4)

    def calm_then_wild(start, calm, wild, size):
        steps = np.concatenate([rng.normal(0, calm, size - 21), rng.normal(0, wild, 21)])
        return start * np.exp(np.cumsum(steps))

    parts = {"SP500": series(dates, calm_then_wild(4000, 0.006, 0.04, n)),
             "DEXUSEU": series(dates, calm_then_wild(1.1, 0.004, 0.03, n)),
             "DCOILWTICO": series(dates, calm_then_wild(70, 0.015, 0.08, n)),
             "CBBTCUSD": series(days, calm_then_wild(30000, 0.02, 0.12, n)),
             "DGS10": series(dates, 4 + np.cumsum(np.concatenate([rng.normal(0, 0.03, n - 21),
                                                                  rng.normal(0, 0.25, 21)])))}
    payload = cav.compute(make_frames(parts))
    ca = payload["data"]["cross_asset"]
    assert ca["assets_above_80th_percentile"] == 5 and ca["mean_percentile_21d_10y"] == 100.0
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    assert {s["name"] for s in payload["signals"][1:]} == {f"{a}_volatility_spike" for a in
                                                          ("equities", "rates", "fx", "oil", "bitcoin")}
    check_payload(payload)


def test_missing_assets_are_named_and_lower_confidence():
    parts = market("calm", n=900)
    full = cav.compute(make_frames(parts))
    part = cav.compute(make_frames({k: parts[k] for k in ("SP500", "DGS10", "DEXUSEU")}))
    assert set(part["data"]["unavailable"]) == {"oil", "bitcoin"}
    assert part["data"]["cross_asset"]["assets_used"] == 3
    assert part["data"]["equities"] == full["data"]["equities"]
    assert "Not computed: oil, bitcoin" in part["summary"]
    assert "missing inputs: DCOILWTICO, CBBTCUSD" in part["summary"]
    assert part["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(part)
    short = cav.compute(make_frames({"SP500": parts["SP500"].tail(30), "DGS10": parts["DGS10"].tail(10)}))
    assert short["data"]["equities"]["realized_vol_63d_pct"] is None
    assert short["data"]["equities"]["percentile_63d_10y"] is None and "rates" in short["data"]["unavailable"]
    check_payload(short)
    with pytest.raises(InsufficientData):
        cav.compute(make_frames({"SP500": parts["SP500"].tail(10)}))


def _stopped_a_year_ago(frame):
    from datetime import timedelta

    from builders import NOW
    return series(bdays(frame.height, NOW - timedelta(days=365)), frame["value"].to_numpy())


def test_stale_fx_is_left_out_of_the_cross_asset_figures():
    parts = market("calm", n=900)
    eur = parts["DEXUSEU"]["value"].to_numpy().copy()
    eur[-21:] *= np.exp(np.random.default_rng(2).normal(0, 0.03, 21))  # a volatile last month, a year ago
    parts["DEXUSEU"] = _stopped_a_year_ago(series(parts["DEXUSEU"]["date"], eur))
    payload = cav.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    without = cav.compute(make_frames({k: v for k, v in parts.items() if k != "DEXUSEU"}))["data"]
    assert d["cross_asset"] == without["cross_asset"] and d["cross_asset"]["assets_used"] == 4
    assert d["fx"]["stale"] is True and d["fx"]["date"] == parts["DEXUSEU"]["date"][-1].isoformat()
    assert d["fx"]["percentile_21d_10y"] >= 95
    assert not d["equities"]["stale"]
    assert "fx_volatility_spike" not in {s["name"] for s in payload["signals"]}
    s = payload["summary"]
    assert "EUR/USD" not in s.split(" Left out")[0]
    assert f"as stale: fx (last {d['fx']['date']})" in s and "stale inputs: DEXUSEU" in s
    full = cav.compute(make_frames(market("calm", n=900)))
    assert payload["signals"][0]["confidence"] < full["signals"][0]["confidence"]


def test_every_asset_stale_leaves_the_cross_asset_figures_unavailable():
    parts = {k: _stopped_a_year_ago(v) for k, v in market("calm", n=900).items()
             if k in ("SP500", "DGS10", "DEXUSEU", "DCOILWTICO")}
    payload = cav.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    assert "cross_asset" not in d and "stale" in d["unavailable"]["cross_asset"]
    assert payload["signals"] == []
    assert all(d[a]["stale"] for a in ("equities", "rates", "fx", "oil"))
    assert "mean percentile" not in payload["summary"]
