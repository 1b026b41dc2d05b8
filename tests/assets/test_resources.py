"""The warehouse resource on a real DuckDB file: a run's steps share one connection, the run's end releases the
file to other processes, and a failed write drops the connection (noted for /health/dashboard) so the next step
starts on the file as it was last committed."""
import subprocess
import sys

import duckdb
import orjson
import pytest
import redis
from dagster import asset, materialize

import assets.resources
from assets.resources import WarehouseResource
from marketintel.settings import Settings
from warehouse import keys


@pytest.fixture
def opened(monkeypatch):
    """Every Warehouse the resource opens, in order."""
    made = []

    class Counted(assets.resources.Warehouse):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(assets.resources, "Warehouse", Counted)
    return made


def resource(settings: Settings) -> WarehouseResource:
    return WarehouseResource(path=str(settings.warehouse_path), analyst_path=str(settings.analyst_path))


def writer(name: str, fail: bool = False):
    @asset(name=name)
    def _write(warehouse: WarehouseResource) -> None:  # (no `from __future__`: Dagster reads the annotation)
        with warehouse.open() as store:
            store.con.execute("create table if not exists steps (name varchar)")
            store.con.execute("insert into steps values (?)", [name])
            if fail:
                raise duckdb.IOException("could not write: No space left on device")
    return _write


def file_opens_elsewhere(path) -> bool:
    """Whether another process can open the file for writing now (DuckDB locks it per process)."""
    done = subprocess.run([sys.executable, "-c", f"import duckdb; duckdb.connect({str(path)!r}).close()"],
                          capture_output=True, text=True)
    return done.returncode == 0


def test_the_steps_of_a_run_share_one_connection_and_the_run_releases_the_file(mi_home, opened):
    settings = Settings()
    result = materialize([writer("a"), writer("b"), writer("c")], resources={"warehouse": resource(settings)})
    assert result.success
    assert len(opened) == 1
    assert file_opens_elsewhere(settings.warehouse_path)
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        assert sorted(con.execute("select name from steps").fetchall()) == [("a",), ("b",), ("c",)]


def test_a_failed_write_drops_the_connection_and_is_noted(mi_home, opened, redis_url, monkeypatch):
    monkeypatch.setenv("MI_REDIS_URL", redis_url)
    settings = Settings()
    # the in-process executor runs independent steps in the order of their keys: a, b_fails, c
    result = materialize([writer("a"), writer("b_fails", fail=True), writer("c")],
                         resources={"warehouse": resource(settings)}, raise_on_error=False)
    assert not result.success
    assert len(opened) == 2  # a and b_fails on the first connection, c on a new one
    noted = orjson.loads(redis.Redis.from_url(redis_url).get(keys.STATUS_INGEST))["warehouse_error"]
    assert noted["path"] == str(settings.warehouse_path) and "No space left" in noted["error"], noted
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        assert sorted(con.execute("select name from steps").fetchall()) == [("a",), ("b_fails",), ("c",)]
