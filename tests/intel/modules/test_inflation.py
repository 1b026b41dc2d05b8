from datetime import date

import pytest
from builders import check_payload, make_frames, month_starts, series

from intel.modules import inflation
from tests.intel.provenance_checks import expanded


def _index(n, r1, r2, last_k=3):
    values, level = [], 100.0
    for i in range(n):
        level *= 1 + (r2 if i >= n - last_k else r1)
        values.append(level)
    return values


def test_yoy_and_annualized_rates_on_constructed_index():
    r1, r2 = 0.002, 0.005
    cpi = _index(30, r1, r2)
    frames = make_frames({"CPILFESL": series(month_starts(30), cpi),
                          "PCEPILFE": series(month_starts(30), _index(30, r1, r1))},
                         now=date(2024, 6, 20))
    payload = inflation.compute(frames)
    core = payload["data"]["core_cpi"]
    yoy = ((1 + r1) ** 9 * (1 + r2) ** 3 - 1) * 100
    assert core["yoy_pct"] == pytest.approx(round(yoy, 2))
    assert core["annualized_3m_pct"] == pytest.approx(round(((1 + r2) ** 12 - 1) * 100, 2))
    assert core["annualized_6m_pct"] == pytest.approx(round(((1 + r1) ** 3 * (1 + r2) ** 3) ** 2 * 100 - 100, 2))
    assert core["mom_pct"] == pytest.approx(0.5) and core["period"] == "2024-05"
    assert core["acceleration_pp"] > 0
    pce = payload["data"]["core_pce"]
    assert pce["yoy_pct"] == pytest.approx(round(((1 + r1) ** 12 - 1) * 100, 2))
    assert pce["gap_to_target_pp"] == pytest.approx(round(pce["yoy_pct"] - 2, 2), abs=0.011)
    assert payload["data"]["lead_measure"] == "core_pce"
    assert set(payload["data_sources"]["missing"]) == {"CPIAUCSL", "PPIFIS"}
    check_payload(payload)


def test_missing_month_gives_none_not_a_shifted_month():
    dates = month_starts(30)
    values = _index(30, 0.003, 0.003)
    del dates[23], values[23]  # 2023-11 absent: the 6-month base of 2024-05 is missing
    payload = inflation.compute(make_frames({"CPIAUCSL": series(dates, values)}, now=date(2024, 6, 20)))
    cpi = payload["data"]["cpi"]
    assert cpi["yoy_pct"] is not None and cpi["annualized_3m_pct"] is not None
    assert cpi["annualized_6m_pct"] is None
    check_payload(payload)


def test_provenance_names_the_index_observations():
    dates = month_starts(30)
    frames = make_frames({"CPILFESL": series(dates, _index(30, 0.002, 0.005))}, now=date(2024, 6, 20))
    prov = expanded(inflation.compute(frames)["provenance"])
    yoy = prov["core_cpi.yoy_pct"]
    assert yoy["attribution"] == "observation" and yoy["recompute"]["kind"] == "pct_change"
    assert yoy["inputs"] == [{"series": "CPILFESL", "dates": ["2024-05-01", "2023-05-01"]}]
    assert prov["core_cpi.index_level"]["inputs"] == [{"series": "CPILFESL", "dates": ["2024-05-01"]}]
    accel = prov["core_cpi.acceleration_pp"]
    assert accel["attribution"] == "series" and accel["inputs"] == [{"series": "CPILFESL", "through": "2024-05-01"}]
    assert "annualized" in accel["operation"]
