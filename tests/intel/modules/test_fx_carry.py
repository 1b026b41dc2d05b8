from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, month_starts, random_walk, series, to_pandas

from intel.catalog import CATALOG
from intel.frames import Frames
from intel.modules import fx_carry as fc
from intel.providers.live import LiveConfig, sources
from intel.providers.sim import SimProvider
from intel.registry import modules
from tests.history import history_dir
from tests.intel.provenance_checks import expanded, replay_inputs

EZ, JP = "IR3TIB01EZM156N", "IR3TIB01JPM156N"


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
    # no foreign rate among the inputs: each pair is listed, naming the series it lacks, and the summary says so
    assert d["unavailable"]["carry_to_vol_EURUSD"].startswith(f"no observations of {EZ}")
    assert d["unavailable"]["carry_to_vol_USDJPY"].startswith(f"no observations of {JP}")
    assert d["pairs_with_carry_to_vol"] == 0 and "carry_to_vol" not in eur
    assert d["pairs_without_foreign_rate"] == 2 and d["pairs_lacking_foreign_rate"] == ["EURUSD", "USDJPY"]
    assert ("The test data has no foreign short rate for EURUSD, USDJPY, so carry-to-vol could not be computed "
            "for any pair") in payload["summary"]
    assert {EZ, JP} <= set(payload["data_sources"]["missing"])
    check_payload(payload)


def test_foreign_rates_are_the_catalogs_monthly_oecd_series():
    assert fc.FOREIGN_RATES == {"EUR": EZ, "GBP": "IR3TIB01GBM156N", "AUD": "IR3TIB01AUM156N", "JPY": JP,
                                "CAD": "IR3TIB01CAM156N", "CHF": "IR3TIB01CHM156N", "CNY": "IR3TIB01CNM156N",
                                "MXN": "IR3TIB01MXM156N"}
    for sid in fc.FOREIGN_RATES.values():
        entry = CATALOG[sid]
        assert (entry.frequency, entry.unit, entry.asset_class) == ("monthly", "percent", "rates")
        assert entry.release_lag_days >= 31  # a month's average is out only after the month
        # the live provider asks the FRED API for it, with a key
        assert sid in fc.INPUTS and sources.chain(sid, LiveConfig(fred_api_key="k")) == ["fred"]


def test_carry_uses_the_latest_monthly_rate_and_names_its_date():
    parts = _parts()
    months = month_starts(30, date(2024, 7, 1))  # the July value is dated after the clock (June 28)
    rates = np.linspace(3.0, 4.1, 30)
    parts[EZ] = series(months, rates)
    payload = fc.compute(make_frames(parts))
    d, eur = payload["data"], payload["data"]["pairs"]["EURUSD"]
    # June's average (dated 2024-06-01) is the last observation at or before the clock; July's is not seen
    rate, bill = rates[-2], float(parts["DGS3MO"]["value"][-1])
    assert eur["foreign_rate_series"] == EZ and eur["foreign_rate_date"] == "2024-06-01"
    assert eur["foreign_rate_pct"] == round(rate, 2)
    assert eur["carry_pct"] == pytest.approx(round(rate - bill, 2))
    e = parts["DEXUSEU"]["value"].to_numpy()
    rv = np.log(pd.Series(e)).diff().iloc[-63:].std() * np.sqrt(252) * 100
    assert eur["realized_vol_63d_pct"] == pytest.approx(round(rv, 2))
    assert eur["carry_to_vol"] == pytest.approx((rate - bill) / eur["realized_vol_63d_pct"], abs=1e-3)
    year = [r for m, r in zip(months, rates) if date(2023, 6, 1) < m <= date(2024, 6, 1)]
    assert eur["total_return_1y_pct"] == pytest.approx(eur["spot_return_1y_pct"] + np.mean(year), abs=0.011)
    carry = expanded(payload["provenance"])["pairs.EURUSD.carry_pct"]
    assert carry["attribution"] == "observation"
    assert carry["inputs"] == [{"series": EZ, "dates": ["2024-06-01"]}, {"series": "DGS3MO", "dates": ["2024-06-28"]}]
    # the yen has no rate here: it alone is listed, with the series it lacks
    assert d["pairs_with_carry_to_vol"] == 1 and d["pairs_lacking_foreign_rate"] == ["USDJPY"]
    assert "carry_to_vol_EURUSD" not in d["unavailable"] and JP in d["unavailable"]["carry_to_vol_USDJPY"]
    assert d["best_carry_to_vol_pair"] == "EURUSD" and "2024-06-01" in payload["summary"]
    status = {s["id"]: s for s in payload["data_sources"]["series"]}[EZ]
    assert status["last_observation"] == "2024-06-01" and status["cadence"] == "monthly" and not status["stale"]
    assert payload["data_as_of"] == "2024-06-28"  # the pairs and the bill lead; the rate keeps its own date
    check_payload(payload)


SIM_NOW = date(2026, 11, 20)


def test_sim_computes_carry_to_vol_for_every_pair_with_a_rate():
    start = SIM_NOW - timedelta(days=modules()[fc.NAME].lookback_days)
    frames = Frames.from_long(SimProvider().observations(fc.INPUTS, start, SIM_NOW), SIM_NOW, "sim")
    with_rate = {ccy for ccy, sid in fc.FOREIGN_RATES.items() if frames.get(sid) is not None}
    assert with_rate == set(fc.FOREIGN_RATES)  # the sim simulates every catalog series
    payload = fc.compute(frames)
    d = payload["data"]
    bill = frames.get("DGS3MO")
    assert d["pairs_with_carry_to_vol"] == len(d["pairs"]) == 8 and d["pairs_lacking_foreign_rate"] == []
    for row in d["pairs"].values():
        rate = frames.get(fc.FOREIGN_RATES[row["currency"]])
        last_day, last = rate["date"][-1], float(rate["value"][-1])
        # published about two months on: the latest month out by the clock, not the clock's month
        assert last_day <= SIM_NOW - timedelta(days=CATALOG[row["foreign_rate_series"]].release_lag_days)
        assert row["foreign_rate_date"] == last_day.isoformat()
        assert row["carry_pct"] == pytest.approx(round(last - float(bill["value"][-1]), 2))
        assert row["carry_to_vol"] == pytest.approx(row["carry_pct"] / row["realized_vol_63d_pct"], abs=2e-3)
    assert "Carry-to-vol is computed for 8 pairs" in payload["summary"]
    check_payload(payload)


def test_replay_history_has_no_foreign_rate_and_says_so():
    history_dir()
    frames, _ = replay_inputs(modules()[fc.NAME], date(2022, 6, 17))
    payload = fc.compute(frames)
    d = payload["data"]
    assert d["pairs_with_carry_to_vol"] == 0 and len(d["pairs_lacking_foreign_rate"]) == len(d["pairs"]) == 8
    assert set(payload["data_sources"]["missing"]) == set(fc.FOREIGN_RATES.values())
    assert "The replay data has no foreign short rate for EURUSD" in payload["summary"]


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
