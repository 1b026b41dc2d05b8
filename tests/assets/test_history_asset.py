"""`module_history` materialized for real (Dagster, DuckDB) from an analyst copy of simulated observations: a day's
partition stores every non-ticker module's answer at that day's 00:00 UTC, equal to the `as_of` answer computed
cold; it publishes the copy the API reads, with the figures analysts query; a day after the market clock fails
rather than store an answer from the future."""
from __future__ import annotations

from datetime import date, timedelta

import orjson
import pytest
from dagster import DagsterInstance, materialize

from assets.history import module_history
from assets.modules import scheduled_modules
from assets.resources import HistoryResource, MarketResource, WarehouseResource
from intel.providers.sim import SimProvider
from intel.registry import modules
from tests.replays import replay_settings
from warehouse.duckdb_store import Warehouse
from warehouse.history_store import HistoryReader
from warehouse.time_travel import payload_at

DAY = date(2026, 6, 1)  # a Monday


@pytest.fixture
def copy(settings):
    now = MarketResource.from_settings(settings)
    now.setup_for_execution(None)
    inputs = sorted({sid for m in modules().values() for sid in m.inputs})
    with Warehouse(settings.analyst_path) as store:
        store.write_observations(SimProvider(seed=7).observations(inputs, DAY - timedelta(days=4000), now.now), "sim",
                                 now.now)
    return settings.analyst_path


def resources(settings) -> dict:
    return {"warehouse": WarehouseResource(path=str(settings.warehouse_path), analyst_path=str(settings.analyst_path)),
            "market": MarketResource.from_settings(settings), "history": HistoryResource.from_settings(settings)}


def test_a_day_partition_stores_every_module_as_of_that_day(settings, copy):
    with DagsterInstance.ephemeral() as instance:
        result = materialize([module_history], partition_key=DAY.isoformat(), resources=resources(settings),
                             instance=instance)
    assert result.success
    reader = HistoryReader(settings.history_copy_path)
    for module in scheduled_modules():
        stored = reader.payload(module.name, DAY, "sim")
        assert isinstance(stored, bytes), (module.name, stored)
        assert orjson.loads(stored) == orjson.loads(orjson.dumps(payload_at(copy, module, DAY, "sim"),
                                                                 option=orjson.OPT_SERIALIZE_NUMPY)), module.name
    vix = reader.points("vix", [DAY, DAY + timedelta(days=1)], "sim", ("level", "signals"))
    assert list(vix) == [DAY]  # the next day was not materialized
    assert vix[DAY].figures["level"] == orjson.loads(reader.payload("vix", DAY, "sim"))["data"]["level"]
    metadata = result.asset_materializations_for_node("module_history")[0].metadata
    assert metadata["answers"].value == len(scheduled_modules()) and metadata["without_answer"].value == 0


def test_a_day_after_the_market_clock_is_not_materialized(mi_home, redis_url, monkeypatch):
    settings = replay_settings(DAY, redis_url, monkeypatch)  # a replay's clock runs behind the wall clock's days
    with DagsterInstance.ephemeral() as instance:
        result = materialize([module_history], partition_key=(DAY + timedelta(days=7)).isoformat(),
                             resources=resources(settings), instance=instance, raise_on_error=False)
    assert not result.success
    failure = result.get_step_failure_events()[0].step_failure_data.error
    assert "after the market clock (2026-06-01)" in failure.message, failure.message
    assert not settings.history_copy_path.exists()
