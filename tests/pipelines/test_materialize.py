"""Real Dagster materializations on a temp MI_HOME: sim end to end into Redis, incremental ingest, replay
over the real history. Each run is recorded in the instance under MI_HOME like `marketintel up`'s. The sim
tests share one materialization per session (`sim_home`, tests/pipelines/conftest.py), each on its own copy."""
from __future__ import annotations

from datetime import UTC, date, datetime

import duckdb
import orjson
import pytest
from dagster import AssetKey, DagsterInstance

from intel.registry import modules
from marketintel.settings import Settings
from pipelines.definitions import build_defs
from pipelines.instance import ensure_dagster_home
from pipelines.materialize import materialize_all
from tests.cache_reads import CacheReader
from tests.history import history_dir
from tests.pipelines.served import check_published, query_ticker_modules
from warehouse.duckdb_store import Warehouse


@pytest.fixture
def env(mi_home, redis_url, monkeypatch):
    monkeypatch.setenv("MI_REDIS_URL", redis_url)
    return monkeypatch


def scheduled() -> set[str]:
    return {m.name for m in modules().values() if not m.takes_ticker}


def ingest_metadata(settings: Settings) -> dict:
    with DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        event = instance.get_latest_materialization_event(AssetKey("observations"))
        return {k: v.value for k, v in event.asset_materialization.metadata.items()}


def test_sim_materialization_publishes_every_module_and_the_pulse(sim_home):
    settings, out, progress = sim_home.settings, sim_home.out, sim_home.progress

    assert out["success"] and out["failed_steps"] == [] and out["module_errors"] == []
    # observations, pulse, publish; the four foresight assets; chart_series; trading_signals; the scanner; the
    # day-trade journal
    total = len(scheduled()) + 3 + 4 + 1 + 1 + 1 + 1
    assert out["steps"] == total and [p[0] for p in progress] == list(range(1, total + 1))
    assert progress[0][2] == "observations" and [p[2] for p in progress[-2:]] == ["publish", "scanner"]

    cache = CacheReader.from_url(settings.effective_redis_url)
    assert cache.published_modules() == sorted(scheduled())
    today = datetime.now(UTC).date().isoformat()  # the sim clock is wall time (UTC)
    for name in scheduled():
        body, meta = cache.get_module(name, "full")
        payload = orjson.loads(body)
        assert payload["module"] == name and "_meta" not in payload
        assert meta["data_source"] == "sim" and meta["simulated"] is True
        assert cache.get_module(name, "prompt")[0] and cache.get_module(name, "compact")[0]
    pulse, pulse_meta = cache.get_pulse()
    assert orjson.loads(pulse) and pulse_meta["simulated"] is True and pulse_meta["as_of"] <= today
    for product in ("regime", "parallels", "predictions.live.all", "prediction_accuracy", "track_record",
                    "chart_series", "trading_signals"):
        body = cache.r.get(f"mi:product:{product}:full")
        meta = orjson.loads(cache.r.get(f"mi:product:{product}:meta"))
        assert orjson.loads(body)["as_of"] == meta["as_of"] and meta["simulated"] is True, product
    # the regime classifier's scorecard rides with the accuracy page; simulated data lived through no episode
    classifier = orjson.loads(cache.r.get("mi:product:prediction_accuracy:full"))["regime_classifier"]
    assert classifier["by_label"]["risk_on"]["n_days"] > 0 and classifier["reaction"]["episodes"] == []
    # the carry leg runs in the product: the ingest brought every foreign rate the catalog names
    carry = orjson.loads(cache.get_module("fx_carry", "full")[0])["data"]
    assert carry["pairs_with_carry_to_vol"] == len(carry["pairs"]) == 8 and carry["pairs_lacking_foreign_rate"] == []
    assert all(isinstance(p["carry_to_vol"], float) and p["foreign_rate_date"] < today for p in carry["pairs"].values())

    with duckdb.connect(str(settings.analyst_path), read_only=True) as analyst:  # the copy, not the live file
        assert analyst.execute("select count(distinct module) from module_results").fetchone()[0] == len(scheduled())
        assert analyst.execute("select count(*) from observations").fetchone()[0] > 100_000

    with DagsterInstance.from_config(str(settings.dagster_home)) as instance:  # visible in the UI
        assert instance.get_run_by_id(out["run_id"]).job_name == "refresh_job"


def test_every_published_sim_payload_is_dated_traced_and_renders_for_an_agent(sim_home):
    assert check_published(sim_home.settings) == sorted(scheduled())


def test_the_next_sim_ingest_starts_from_the_watermarks(sim_home):
    """No backfill after the first materialization: only the overlap window is re-read."""
    settings = sim_home.settings
    first = ingest_metadata(settings)
    assert run_job(settings, "ingest_job").success
    second = ingest_metadata(settings)
    assert first["series_new"] > 70 and second["series_new"] == 0
    assert second["rows_fetched"] < first["rows_fetched"] / 20
    assert second["rows_written"] <= second["rows_fetched"]


def test_each_sim_home_is_a_copy_the_test_may_change(sim_home, materialized_sim):
    """The shared materialization stays as it was made: a test's writes land in its own home."""
    settings = sim_home.settings
    assert settings.home.resolve() != materialized_sim.home.resolve()
    shared = materialized_sim.home / "warehouse" / "warehouse.duckdb"
    before = shared.read_bytes()
    with Warehouse(settings.warehouse_path) as store:
        store.con.execute("delete from observations")
    assert shared.read_bytes() == before


def run_job(settings: Settings, name: str):
    with DagsterInstance.from_config(str(ensure_dagster_home(settings))) as instance:
        return build_defs(settings).resolve_job_def(name).execute_in_process(instance=instance)


def test_replay_ingests_only_new_data_as_the_clock_advances(env):
    env.setenv("MI_SOURCE", "replay")
    env.setenv("MI_REPLAY_DIR", str(history_dir()))
    env.setenv("MI_REPLAY_START", "2024-05-01")
    settings = Settings()
    assert run_job(settings, "ingest_job").success
    with Warehouse(settings.warehouse_path) as store:
        before = store.observations_count()
        assert max(store.watermarks().values()) <= date(2024, 5, 1)  # nothing past the clock
    first = ingest_metadata(settings)
    assert first["series_new"] > 70 and first["rows_written"] == before

    env.setenv("MI_REPLAY_START", "2024-05-15")  # two market weeks later
    settings = Settings()
    assert run_job(settings, "ingest_job").success
    second = ingest_metadata(settings)
    assert second["series_new"] == 0 and second["market_date"] == "2024-05-15"
    assert 0 < second["rows_written"] < first["rows_written"] / 100
    with Warehouse(settings.warehouse_path) as store:
        assert store.observations_count() == before + second["rows_written"]
        newest = store.con.execute(
            "select min(date), max(date) from observations where ingested_at >= '2024-05-15'").fetchone()
        assert date(2024, 5, 1) < newest[1] <= date(2024, 5, 15)


def test_replay_over_the_real_history_computes_every_module(env):
    env.setenv("MI_SOURCE", "replay")
    env.setenv("MI_REPLAY_DIR", str(history_dir()))
    out = materialize_all(Settings())
    assert out["success"] and out["failed_steps"] == []
    assert out["module_errors"] == [], out
    assert out["module_warnings"] == [], out  # the real history has every input the modules need
    cache = CacheReader.from_url(Settings().effective_redis_url)
    assert cache.published_modules() == sorted(scheduled())
    assert cache.get_module("vix", "full")[1]["simulated"] is False
    assert check_published(Settings()) == sorted(scheduled())
    assert set(query_ticker_modules(Settings())) == set(modules()) - scheduled()
