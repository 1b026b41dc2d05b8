"""The module asset factory on a real warehouse: point-in-time inputs in, results out, and a module that
lacks data or breaks is recorded in its asset check without failing the run."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import polars as pl
from dagster import AssetCheckSeverity, materialize

from assets.modules import build_module_asset
from assets.resources import MarketResource, WarehouseResource
from intel.envelope import InsufficientData
from intel.registry import Module
from marketintel.settings import Settings
from warehouse.duckdb_store import Warehouse


def make(name: str, compute) -> Module:
    return Module(name=name, category="testing", tier="S", inputs=("AAA", "BBB"), description=name,
                  compute=compute, lookback_days=30)


def latest_seen(frames) -> dict:
    aaa = frames.get("AAA")
    return {"module": "fine", "as_of": frames.now.isoformat(), "data": {"last": aaa["value"][-1], "n": aaa.height},
            "missing": [s for s in ("AAA", "BBB") if frames.get(s) is None]}


def lacking(frames):
    raise InsufficientData("no BBB")


def broken(frames):
    return 1 / 0


def test_module_assets_record_results_and_outcomes(mi_home):
    settings = Settings()
    today = datetime.now(UTC).date()  # the sim clock is wall time
    days = [today - timedelta(days=i) for i in range(60, -1, -1)]
    with Warehouse(settings.warehouse_path) as store:
        rising = pl.DataFrame({"series_id": "AAA", "date": days, "value": [float(i) for i in range(61)]})
        store.write_observations(rising, "sim", datetime.now(UTC))
    resources = {"warehouse": WarehouseResource(path=str(settings.warehouse_path),
                                                analyst_path=str(settings.analyst_path)),
                 "market": MarketResource.from_settings(settings)}
    assets = [build_module_asset(make("fine", latest_seen)), build_module_asset(make("lacking", lacking)),
              build_module_asset(make("broken", broken))]

    result = materialize(assets, resources=resources)

    assert result.success  # neither the short nor the broken module fails the run
    checks = {e.asset_key.to_user_string(): e for e in result.get_asset_check_evaluations()}
    assert checks["fine"].passed
    assert not checks["lacking"].passed and checks["lacking"].severity == AssetCheckSeverity.WARN
    assert not checks["broken"].passed and checks["broken"].severity == AssetCheckSeverity.ERROR
    assert "ZeroDivisionError" in checks["broken"].metadata["reason"].value
    status = {name: result.asset_materializations_for_node(name)[0].metadata["status"].value
              for name in ("fine", "lacking", "broken")}
    assert status == {"fine": "ok", "lacking": "insufficient_data", "broken": "error"}

    with Warehouse(settings.warehouse_path) as store:
        stored = store.latest_module_results()
        assert set(stored) == {"fine"}  # only computed payloads are stored (and so published)
        fine = stored["fine"]
        assert fine.as_of == today and fine.data_source == "sim"
        # lookback_days=30 bounds the window; the last value is today's
        assert fine.payload["data"] == {"last": 60.0, "n": 31} and fine.payload["missing"] == ["BBB"]
