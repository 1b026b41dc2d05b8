"""Steps of the live ingest tests: run the ingest asset, read what it stored and what it reported."""
from __future__ import annotations

import orjson
import redis
from dagster import materialize

from assets.ingest import observations
from assets.resources import MarketResource, WarehouseResource
from marketintel.settings import Settings
from warehouse import status
from warehouse.duckdb_store import Warehouse


def ingest() -> dict:
    settings = Settings()
    result = materialize([observations], resources={
        "warehouse": WarehouseResource(path=str(settings.warehouse_path), analyst_path=str(settings.analyst_path)),
        "market": MarketResource.from_settings(settings)})
    assert result.success
    mats = result.asset_materializations_for_node("observations")
    return {k: v.value for k, v in mats[0].metadata.items()}


def stored() -> dict[tuple[str, str], float]:
    """The latest revision of every (series, date) the live source holds."""
    with Warehouse(Settings().warehouse_path) as store:
        rows = store.con.execute(
            "select series_id, date, arg_max(value, ingested_at) from observations where source = 'live'"
            " group by series_id, date").fetchall()
    return {(sid, day.isoformat()): value for sid, day, value in rows}


def redis_status(url: str) -> tuple[dict, dict]:
    client = redis.Redis.from_url(url)
    sources = {k.decode(): orjson.loads(v) for k, v in client.hgetall(status.SOURCES).items()}
    return sources, orjson.loads(client.get(status.INGEST))
