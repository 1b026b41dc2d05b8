"""The data-quality checks on a real warehouse under a temp MI_HOME, run by Dagster: constructed stale, gapped,
impossible and outlying series are named by the right check at the right severity, clean data passes, and a
sim materialization publishes per-series freshness to Redis."""
from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta

import orjson
import polars as pl
import pytest
import redis
from dagster import AssetCheckSeverity, AssetSelection, DagsterInstance, materialize

from assets.checks import OUTLIER_SIGMA, observations_quality
from assets.ingest import observations
from assets.resources import MarketResource, ServingCacheResource, WarehouseResource
from intel.catalog import CATALOG
from marketintel.settings import Settings
from pipelines.definitions import build_defs
from pipelines.instance import ensure_dagster_home
from warehouse import status
from warehouse.duckdb_store import Warehouse

IDS = ("SP500", "DGS10", "VIXCLS", "USREC", "CBBTCUSD")


class OnlyTheseSeries:
    """The sim provider's identity, offering only the series a test writes."""
    name, simulated = "sim", True

    def series_ids(self):
        return list(IDS)


class FewSeriesMarket(MarketResource):
    def setup_for_execution(self, context) -> None:
        super().setup_for_execution(context)
        self._provider = OnlyTheseSeries()


def business_days(end: date, n: int) -> list[date]:
    days, d = [], end
    while len(days) < n:
        if d.weekday() < 5:
            days.append(d)
        d -= timedelta(days=1)
    return days[::-1]


def clean(today: date) -> dict[str, pl.DataFrame]:
    """Plausible series up to the market date: deterministic wiggles around a level."""
    def frame(days, values):
        return pl.DataFrame({"date": days, "value": values})

    bdays = business_days(today - timedelta(days=1), 300)
    cal = [today - timedelta(days=i) for i in range(299, -1, -1)]
    last = today - timedelta(days=40)  # USREC comes out ~32 days after its month
    months = [date(last.year + (last.month - 22 + i) // 12, (last.month - 22 + i) % 12 + 1, 1) for i in range(22)]
    wiggle = [math.sin(i * 1.7) for i in range(300)]
    return {
        "SP500": frame(bdays, [5000 * math.exp(0.01 * w) for w in wiggle]),
        "DGS10": frame(bdays, [4.0 + 0.05 * w for w in wiggle]),
        "VIXCLS": frame(bdays, [16 + 2 * w for w in wiggle]),
        "USREC": frame(months, [0.0] * 22),
        "CBBTCUSD": frame(cal, [60000 * math.exp(0.02 * w) for w in wiggle]),
    }


def write(settings: Settings, frames: dict[str, pl.DataFrame]) -> None:
    long = pl.concat([f.with_columns(series_id=pl.lit(sid)).select("series_id", "date", "value")
                      for sid, f in frames.items()])
    with Warehouse(settings.warehouse_path) as store:
        store.write_observations(long, "sim", datetime.now(UTC))


def run_checks(settings: Settings) -> dict:
    resources = {"warehouse": WarehouseResource(path=str(settings.warehouse_path),
                                                analyst_path=str(settings.analyst_path)),
                 "market": FewSeriesMarket.from_settings(settings),
                 "serving": ServingCacheResource(redis_url=settings.effective_redis_url)}
    result = materialize([observations, observations_quality], resources=resources,
                         selection=AssetSelection.checks(observations_quality))
    assert result.success  # failing checks never fail the run
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


def named(evaluation) -> list[str]:
    return evaluation.metadata["series"].value


@pytest.fixture(autouse=True)
def sim(mi_home, redis_url, monkeypatch):
    monkeypatch.setenv("MI_SOURCE", "sim")
    monkeypatch.setenv("MI_REDIS_URL", redis_url)


@pytest.fixture
def today(mi_home) -> date:
    return datetime.now(UTC).date()  # the sim clock is wall time


def test_clean_data_passes_every_check(mi_home, today):
    settings = Settings()
    write(settings, clean(today))
    checks = run_checks(settings)
    assert set(checks) == {"fresh", "no_gaps", "plausible_values", "no_outliers"}
    assert {name: e.passed for name, e in checks.items()} == dict.fromkeys(checks, True), \
        {n: e.metadata["details"].value for n, e in checks.items() if not e.passed}


def test_stale_gapped_impossible_and_outlying_series_are_named(mi_home, today):
    settings = Settings()
    frames = clean(today)
    frames["DGS10"] = frames["DGS10"].filter(pl.col("date") < today - timedelta(days=30))  # stale
    sp = frames["SP500"]
    frames["SP500"] = sp.filter(~pl.col("date").is_between(today - timedelta(days=60), today - timedelta(days=45)))
    frames["VIXCLS"] = frames["VIXCLS"].with_columns(  # VIX at zero is impossible
        value=pl.when(pl.col("date") == frames["VIXCLS"]["date"][-10]).then(0.0).otherwise(pl.col("value")))
    frames["USREC"] = frames["USREC"].with_columns(value=pl.when(pl.arange(0, 22) == 5).then(0.5).otherwise(0.0))
    btc = frames["CBBTCUSD"]  # the last day jumps 60% after daily moves of a few percent
    frames["CBBTCUSD"] = btc.with_columns(value=pl.when(pl.col("date") == today).then(pl.col("value") * 1.6)
                                          .otherwise(pl.col("value")))
    write(settings, frames)

    checks = run_checks(settings)

    assert not checks["fresh"].passed and named(checks["fresh"]) == ["DGS10"]
    assert checks["fresh"].severity == AssetCheckSeverity.WARN
    assert checks["fresh"].metadata["details"].value["DGS10"]["age_days"] > CATALOG["DGS10"].max_age_days
    assert not checks["no_gaps"].passed and named(checks["no_gaps"]) == ["SP500"]
    assert checks["no_gaps"].metadata["details"].value["SP500"]["gaps"][0]["days"] >= 16
    assert not checks["plausible_values"].passed and named(checks["plausible_values"]) == ["USREC", "VIXCLS"]
    assert checks["plausible_values"].severity == AssetCheckSeverity.ERROR
    assert checks["plausible_values"].metadata["details"].value["USREC"]["examples"][0]["value"] == 0.5
    assert not checks["no_outliers"].passed and named(checks["no_outliers"]) == ["CBBTCUSD"]
    assert checks["no_outliers"].severity == AssetCheckSeverity.WARN
    jump = checks["no_outliers"].metadata["details"].value["CBBTCUSD"][0]
    assert jump["date"] == today.isoformat() and jump["sigmas"] > OUTLIER_SIGMA


def test_sim_materialization_publishes_freshness_and_the_quality_job_follows(sim_home, redis_url):
    settings = sim_home.settings
    assert sim_home.out["success"]

    freshness = orjson.loads(redis.Redis.from_url(redis_url).get(status.FRESHNESS))
    assert set(freshness) == set(CATALOG)  # the sim offers every catalog series
    for sid, f in freshness.items():
        assert f["expected_cadence_days"] == CATALOG[sid].expected_cadence_days
        assert f["max_age_days"] == CATALOG[sid].max_age_days
        assert f["stale"] == (f["age_days"] > f["max_age_days"])
    assert not [sid for sid, f in freshness.items() if f["stale"]]  # a fresh sim ingest is fresh

    defs = build_defs(settings)
    with DagsterInstance.from_config(str(ensure_dagster_home(settings))) as instance:
        result = defs.resolve_job_def("quality_job").execute_in_process(instance=instance)
    assert result.success
    checks = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert checks["fresh"].passed and checks["plausible_values"].passed, \
        {n: e.metadata["details"].value for n, e in checks.items() if not e.passed}
    assert defs.resolve_sensor_def("quality_sensor").job_name == "quality_job"
