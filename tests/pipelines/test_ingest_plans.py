"""How the ingest asset splits provider calls: backfill for new series, watermark restarts for the rest."""
from __future__ import annotations

from datetime import date, timedelta

from assets.ingest import GROUP_SPAN_DAYS, OVERLAP_DAYS, fetch_plans


def test_new_series_backfill_and_known_series_restart_below_their_watermark():
    marks = {"DGS10": date(2024, 5, 14), "SP500": date(2024, 5, 13), "CPIAUCSL": date(2024, 4, 1),
             "GDPC1": date(2023, 10, 1), "DEXUSEU": date(2017, 12, 1)}
    ids = ["CPIAUCSL", "DEXUSEU", "DGS10", "GDPC1", "SP500", "XLRE"]
    plans = fetch_plans(ids, marks, date(1900, 1, 1))
    assert plans[0] == (["XLRE"], date(1900, 1, 1))
    # the discontinued FX series is fetched on its own; it does not pull the others back to 2017
    assert plans[1] == (["DEXUSEU"], date(2017, 12, 1) - timedelta(days=OVERLAP_DAYS))
    # GDP's watermark is more than GROUP_SPAN_DAYS behind the daily series: its own call
    assert (date(2024, 5, 13) - date(2023, 10, 1)).days > GROUP_SPAN_DAYS
    assert plans[2] == (["GDPC1"], date(2023, 10, 1) - timedelta(days=OVERLAP_DAYS))
    # monthly CPI rides along with the daily series
    assert plans[3] == (["CPIAUCSL", "SP500", "DGS10"], date(2024, 4, 1) - timedelta(days=OVERLAP_DAYS))
    assert len(plans) == 4 and sorted(s for group, _ in plans for s in group) == sorted(ids)
    for ids, start in plans[1:]:
        assert all(start <= marks[s] - timedelta(days=OVERLAP_DAYS) for s in ids)


def test_nothing_known_means_one_backfill_call():
    assert fetch_plans(["A", "B"], {}, date(2010, 1, 1)) == [(["A", "B"], date(2010, 1, 1))]
