"""Replay real crises through a real materialization: with the clock set inside the crash, the modules
react as the record says (VIX spike flagged, credit spreads at the top of their range, a risk-off or crisis
regime) and nothing dated after the clock was used."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from intel.catalog import release_lag
from pipelines.materialize import materialize_all
from tests.replays import replay_settings
from warehouse.duckdb_store import Warehouse

# 2020-03-20: the week after the VIX closed at its record 82.69 (March 16), high yield near 10%.
# 2008-10-15: a month after Lehman, VIX above 50, high yield past 10%. The history has no S&P 500 before
# 2016, so in 2008 the regime module reports it missing and only VIX and credit are judged.
CRISES = {"covid_2020": date(2020, 3, 20), "lehman_2008": date(2008, 10, 15)}


@pytest.mark.parametrize("name", list(CRISES))
def test_replayed_crisis(name, mi_home, redis_url, monkeypatch):
    """One materialization per crisis (about 5 s each), judged by the checks below."""
    crisis = replay(CRISES[name], redis_url, monkeypatch)
    nothing_after_the_clock(crisis)
    vix_flags_the_spike(crisis)
    credit_spreads_at_high_percentiles(crisis)
    regime_reads_risk_off_or_crisis(crisis)


def replay(clock: date, redis_url: str, monkeypatch) -> tuple:
    settings = replay_settings(clock, redis_url, monkeypatch)
    out = materialize_all(settings)
    assert out["success"] and out["failed_steps"] == [] and out["module_errors"] == [], out
    with Warehouse(settings.warehouse_path) as store:
        results = store.latest_module_results("replay")
        latest = dict(store.con.execute("select series_id, max(date) from observations group by series_id").fetchall())
    return clock, results, latest


def nothing_after_the_clock(crisis: tuple) -> None:
    clock, results, latest = crisis
    assert len(latest) > 60  # most of the history existed by then
    for series_id, last in latest.items():  # ingestion saw only what had been published by the clock
        assert last <= clock - timedelta(days=release_lag(series_id)), series_id
    for name, result in results.items():
        assert result.as_of == clock and result.payload["as_of"] == clock.isoformat(), name
        for source in result.payload["data_sources"]["series"]:
            assert date.fromisoformat(source["last_observation"]) <= clock, (name, source)


def vix_flags_the_spike(crisis: tuple) -> None:
    clock, results, _ = crisis
    data = results["vix"].payload["data"]
    assert data["level"] >= 40 and data["regime"] == "crisis"
    assert data["spike_flags"]["above_30"] and data["spike_flags"]["above_40"]
    assert data["percentile_1y"] >= 95 and data["percentile_10y"] >= 95
    assert results["vix"].payload["signals"][0]["direction"] == "bearish"


def credit_spreads_at_high_percentiles(crisis: tuple) -> None:
    clock, results, _ = crisis
    payload = results["credit_spreads"].payload
    for grade in ("high_yield", "investment_grade"):
        stats = payload["data"][grade]
        assert stats["percentile_1y"] >= 95 and stats["percentile_10y"] >= 85, (grade, stats)
        assert stats["change_1m_bp"] > 0, (grade, stats)  # widening into the crash
    assert payload["signals"][0]["direction"] == "bearish"


def regime_reads_risk_off_or_crisis(crisis: tuple) -> None:
    clock, results, _ = crisis
    payload = results["market_regime"].payload
    if clock.year < 2016:  # no S&P 500 in the history yet: the module must say so, not guess
        assert "SP500" in payload["data_sources"]["missing"] or payload["data"].get("missing_facts")
        return
    assert payload["data"]["state"] in ("risk_off", "crisis"), payload["data"]
