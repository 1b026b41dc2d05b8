from datetime import date

import numpy as np
import pandas as pd
import pytest
from builders import check_payload, compounded, make_frames, month_starts, series

from intel.modules import growth
from tests.intel.provenance_checks import expanded

NOW = date(2024, 6, 28)
N = 130


def _quarters(n, end=(2024, 1)):
    y, m = end
    return [date((y * 12 + m - 1 - 3 * k) // 12, (y * 12 + m - 1 - 3 * k) % 12 + 1, 1) for k in range(n - 1, -1, -1)]


def _parts(last_3m_growth=(-0.01, -0.01, -0.01), cfnai_tail=(-1.0, -0.9, -0.8)) -> dict:
    t = np.arange(N)
    ip = 0.002 + 0.003 * np.sin(t / 5.0)
    ip[-3:] = last_3m_growth
    retail = 0.003 + 0.004 * np.cos(t / 7.0)
    orders = 0.002 + 0.01 * np.sin(t / 3.0)
    cfnai = 0.3 * np.sin(t / 6.0)
    cfnai[-3:] = cfnai_tail
    gdp_q = np.full(40, 0.005)
    gdp_q[::7] = 0.009
    gdp_q[-1] = -0.01
    months = month_starts(N)
    return {"INDPRO": series(months, compounded(ip)), "RSXFS": series(months, compounded(retail, 500_000)),
            "DGORDER": series(months, compounded(orders, 250_000)), "CFNAI": series(months, cfnai),
            "GDPC1": series(_quarters(40), compounded(gdp_q, 20_000))}


def _ref_z(levels) -> float:
    s = pd.Series(levels)
    ann3 = ((s / s.shift(3)) ** 4 - 1) * 100
    window = ann3.iloc[-120:].dropna()
    return (window.iloc[-1] - window.mean()) / window.std(ddof=1)


def test_rates_z_scores_and_composite_against_pandas():
    parts = _parts()
    payload = growth.compute(make_frames(parts, now=NOW))
    d = payload["data"]
    ip = pd.Series(parts["INDPRO"]["value"].to_numpy())
    assert d["industrial_production"]["period"] == "2024-05"
    assert d["industrial_production"]["mom_pct"] == pytest.approx(-1.0)
    assert d["industrial_production"]["annualized_3m_pct"] == pytest.approx(round((0.99 ** 12 - 1) * 100, 2))
    assert d["industrial_production"]["yoy_pct"] == pytest.approx(round((ip.iloc[-1] / ip.iloc[-13] - 1) * 100, 2))
    zs = {}
    for sid, name in growth.MONTHLY.items():
        zs[sid] = _ref_z(parts[sid]["value"].to_numpy())
        assert d[name]["annualized_3m_zscore_10y"] == pytest.approx(round(zs[sid], 2), abs=1e-9)
    assert d["cfnai"]["ma3"] == pytest.approx(-0.9) and d["cfnai"]["recession_signal"]
    composite = np.mean([np.clip(z, -3, 3) for z in zs.values()] + [-0.9])
    assert d["nowcast"]["composite_z"] == pytest.approx(round(composite, 2), abs=1e-9)
    assert d["nowcast"]["components_used"] == ["INDPRO", "RSXFS", "DGORDER", "CFNAI"]
    # GDP: last quarter -1.0% -> annualised (0.99^4 - 1); YoY against four quarters back
    gdp = parts["GDPC1"]["value"].to_numpy()
    g = d["real_gdp"]
    assert g["quarter"] == "2024-Q1" and g["quarter_start"] == "2024-01-01"
    assert g["qoq_annualized_pct"] == pytest.approx(round((0.99 ** 4 - 1) * 100, 2))
    assert g["yoy_pct"] == pytest.approx(round((gdp[-1] / gdp[-5] - 1) * 100, 2))
    qoq = ((gdp[1:] / gdp[:-1]) ** 4 - 1) * 100
    q1, med, q3 = np.percentile(qoq, [25, 50, 75])
    assert d["nowcast"]["gdp_median_qoq_annualized_10y_pct"] == pytest.approx(round(med, 2))
    assert d["nowcast"]["implied_gdp_annualized_pct"] == pytest.approx(round(med + composite * (q3 - q1) / 1.349, 2),
                                                                       abs=0.011)
    check_payload(payload)


def test_contraction_is_bearish_and_urgent():
    payload = growth.compute(make_frames(_parts(), now=NOW))
    n = payload["data"]["nowcast"]
    sig = payload["signals"][0]
    assert n["composite_z"] < -0.5
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    assert "recession threshold" in payload["summary"]


def test_expansion_is_bullish():
    payload = growth.compute(make_frames(_parts(last_3m_growth=(0.012, 0.012, 0.012), cfnai_tail=(0.6, 0.7, 0.8)),
                                         now=NOW))
    n = payload["data"]["nowcast"]
    assert n["composite_z"] > 0.5 and n["state"] == "above_trend"
    assert payload["signals"][0]["direction"] == "bullish"
    assert not payload["data"]["cfnai"]["recession_signal"]
    check_payload(payload)


def test_missing_inputs_degrade_honestly():
    parts = _parts()
    full = growth.compute(make_frames(parts, now=NOW))
    part = growth.compute(make_frames({k: parts[k] for k in ("INDPRO", "CFNAI")}, now=NOW))
    d = part["data"]
    assert set(part["data_sources"]["missing"]) == {"RSXFS", "GDPC1", "DGORDER"}
    assert {"retail_sales", "durable_goods_orders", "real_gdp", "implied_gdp_annualized_pct"} <= set(d["unavailable"])
    assert d["nowcast"]["components_used"] == ["INDPRO", "CFNAI"]
    assert part["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    assert "missing inputs" in part["summary"]
    check_payload(part)


def test_missing_month_gives_none_not_a_shifted_month():
    parts = _parts()
    frame = parts["INDPRO"]
    parts["INDPRO"] = frame.filter(frame["date"] != date(2024, 2, 1))  # the 3-month base of 2024-05
    d = growth.compute(make_frames(parts, now=NOW))["data"]["industrial_production"]
    assert d["annualized_3m_pct"] is None and d["yoy_pct"] is not None and d["mom_pct"] is not None


def test_stale_cfnai_named():
    parts = _parts()
    parts["CFNAI"] = parts["CFNAI"].head(N - 4)  # last value 2024-01
    payload = growth.compute(make_frames(parts, now=NOW))
    assert "stale inputs: CFNAI" in payload["summary"]
    check_payload(payload)


def test_provenance_names_components_and_gdp():
    prov = expanded(growth.compute(make_frames(_parts(), now=NOW))["provenance"])
    yoy = prov["industrial_production.yoy_pct"]
    assert yoy["attribution"] == "observation" and yoy["recompute"]["kind"] == "pct_change"
    assert yoy["inputs"] == [{"series": "INDPRO", "dates": ["2024-05-01", "2023-05-01"]}]
    assert prov["real_gdp.yoy_pct"]["inputs"] == [{"series": "GDPC1", "dates": ["2024-01-01", "2023-01-01"]}]
    composite = prov["nowcast.composite_z"]
    assert {i["series"] for i in composite["inputs"]} == {"INDPRO", "RSXFS", "DGORDER", "CFNAI"}
    implied = prov["nowcast.implied_gdp_annualized_pct"]
    assert {i["series"] for i in implied["inputs"]} == {"INDPRO", "RSXFS", "DGORDER", "CFNAI", "GDPC1"}
    assert all(entry["attribution"] != "module" for entry in prov.values())
