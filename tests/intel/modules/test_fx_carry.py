from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, random_walk, series, to_pandas

from intel.modules import fx_carry as fc


def _parts(n=600, bill_path=None):
    dates = bdays(n)
    rng = np.random.default_rng(1)
    bill = bill_path if bill_path is not None else 4 + np.cumsum(rng.normal(0, 0.01, n))
    months = sorted({d.replace(day=1) for d in dates})
    return {"DEXUSEU": series(dates, random_walk(n, 1.1, 0.005, 2)),
            "DEXJPUS": series(dates, random_walk(n, 140, 0.006, 3)),
            "DGS3MO": series(dates, bill),
            "FEDFUNDS": series(months, np.linspace(5.3, 4.3, len(months)))}


YEAR_AGO = pd.Timestamp(NOW - timedelta(days=365))


def _year_ago(frame):
    s = to_pandas(frame)
    return float(s[s.index <= YEAR_AGO].iloc[-1])


def test_spot_returns_breakeven_and_vol_by_hand():
    parts = _parts()
    payload = fc.compute(make_frames(parts))
    d = payload["data"]
    eur, jpy = d["pairs"]["EURUSD"], d["pairs"]["USDJPY"]
    e, j = parts["DEXUSEU"]["value"].to_numpy(), parts["DEXJPUS"]["value"].to_numpy()
    # EUR is quoted in dollars per euro: holding euros gains what the quote gains
    assert eur["spot_return_1y_pct"] == pytest.approx(round((e[-1] / _year_ago(parts["DEXUSEU"]) - 1) * 100, 2))
    # JPY is quoted in yen per dollar: holding yen gains what the quote loses, inverted
    assert jpy["spot_return_1y_pct"] == pytest.approx(round((_year_ago(parts["DEXJPUS"]) / j[-1] - 1) * 100, 2))
    bill = to_pandas(parts["DGS3MO"])
    bill_1y = bill[bill.index > YEAR_AGO].mean()
    assert d["us_leg"]["bill_return_1y_pct"] == pytest.approx(round(bill_1y, 2))
    breakeven = bill_1y - eur["spot_return_1y_pct"]
    assert eur["breakeven_foreign_rate_1y_pct"] == pytest.approx(round(breakeven, 2), abs=0.011)
    rv = np.log(pd.Series(j)).diff().iloc[-63:].std() * np.sqrt(252) * 100
    assert jpy["realized_vol_63d_pct"] == pytest.approx(round(rv, 2))
    assert d["us_leg"]["fed_funds_pct"] == 4.3
    # no foreign rates in the catalog: every pair is listed and the summary says so plainly
    assert {"carry_to_vol_EURUSD", "carry_to_vol_USDJPY"} <= set(d["unavailable"])
    assert d["pairs_with_carry_to_vol"] == 0 and "carry_to_vol" not in eur
    assert "Carry-to-vol could not be computed for any pair" in payload["summary"]
    check_payload(payload)


def test_carry_to_vol_where_a_foreign_rate_exists(monkeypatch):
    monkeypatch.setattr(fc, "FOREIGN_RATES", {"EUR": "EUR3M"})
    parts = _parts()
    parts["EUR3M"] = series(parts["DGS3MO"]["date"], np.full(600, 2.5))
    payload = fc.compute(make_frames(parts))
    eur = payload["data"]["pairs"]["EURUSD"]
    bill = parts["DGS3MO"]["value"][-1]
    assert eur["carry_pct"] == pytest.approx(round(2.5 - bill, 2))
    assert eur["carry_to_vol"] == pytest.approx((2.5 - bill) / eur["realized_vol_63d_pct"], abs=2e-3)
    assert "carry_to_vol_EURUSD" not in payload["data"]["unavailable"]
    assert "carry_to_vol_USDJPY" in payload["data"]["unavailable"]
    check_payload(payload)


def test_rising_us_bill_is_bullish_for_the_dollar():
    bill = np.concatenate([np.full(520, 3.0), np.linspace(3.0, 4.2, 80)])
    payload = fc.compute(make_frames(_parts(bill_path=bill)))
    sig = [s for s in payload["signals"] if s["name"] == "usd_rate_leg"][0]
    assert payload["data"]["us_leg"]["bill_3m_change_3m_bp"] >= 25 and sig["direction"] == "bullish"
    check_payload(payload)


def test_missing_us_rates_degrade():
    parts = _parts()
    del parts["DGS3MO"], parts["FEDFUNDS"]
    payload = fc.compute(make_frames(parts))
    d = payload["data"]
    assert "us_rate_leg" in d["unavailable"] and d["us_leg"] == {}
    assert "breakeven_foreign_rate_1y_pct" not in d["pairs"]["EURUSD"]
    assert [s["name"] for s in payload["signals"]] == ["carry_environment"]
    assert "missing inputs" in payload["summary"]
    check_payload(payload)
