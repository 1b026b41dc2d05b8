"""Shared pipeline fixtures: `live` (MI_SOURCE=live against the local protocol server, for the live ingest
tests) and `sim_home` (a home holding a real sim materialization, made once per session and copied per test)."""
from __future__ import annotations

import shutil
from dataclasses import astuple, dataclass
from pathlib import Path

import pytest
import redis

from intel.providers import factory
from tests.intel.providers.live.protocol_server import FRED_KEY, ProtocolServer
from tests.made_once import made_once


@pytest.fixture
def live(mi_home, redis_url, monkeypatch):
    with ProtocolServer() as server:
        # The server answers from this process, beside the run: on a busy machine (parallel workers) an answer took
        # more than 0.3 s, and a 503 read as a timeout. 2 s is ample for an answer; a "timeout" fault sleeps 3 s.
        env = {**server.env(), "MI_SOURCE": "live", "MI_REDIS_URL": redis_url, "MI_LIVE_TIMEOUT_S": "2",
               "MI_LIVE_RETRIES": "1", "MI_LIVE_BACKOFF_S": "0.01", "MI_FRED_API_KEY": FRED_KEY,
               "MI_LIVE_FRED_API_REQUESTS_PER_MINUTE": "100000"}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        server.timeout_sleep_s = 3.0
        yield server
    factory._CACHE.clear()  # drop this server's provider (and its breakers)


@dataclass(frozen=True)
class Materialized:
    """What `materialize_all` left: the home's files, everything it published to Redis (DUMP payloads and
    milliseconds to live, 0 for none), its summary and the progress it reported."""
    home: Path
    redis_dump: dict[bytes, tuple[bytes, int]]
    out: dict
    progress: tuple[tuple[int, int, str], ...]


# A database of the session's Redis server that no test's `redis_url` uses (they flush database 0).
MATERIALIZATION_DB = 15


@pytest.fixture(scope="session")
def materialized_sim(tmp_path_factory, redis_server) -> Materialized:
    """One real sim `refresh_job` run for the whole test run (every worker shares it: tests/made_once.py), as
    `marketintel up` makes it, into its own home and its own database of a session Redis (which no test's flush
    reaches); its keys are dumped and that database emptied again. Tests get copies through `sim_home`."""
    made = made_once(tmp_path_factory, "materialized-sim",
                     lambda folder: astuple(_materialize_sim(folder, redis_server)))
    return Materialized(*made)  # shared as plain values: a class of a conftest does not unpickle by name


def _materialize_sim(folder: Path, redis_server) -> Materialized:
    from marketintel.settings import Settings, get_settings
    from pipelines.materialize import materialize_all

    home = folder / "home"
    home.mkdir()
    url = redis_server.url.rsplit("/", 1)[0] + f"/{MATERIALIZATION_DB}"
    client = redis.Redis.from_url(url)
    client.flushdb()
    progress: list[tuple[int, int, str]] = []
    try:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("MI_HOME", str(home))
            env.setenv("MI_REDIS_URL", url)
            env.setenv("MI_SOURCE", "sim")
            get_settings.cache_clear()
            out = materialize_all(Settings(), on_progress=lambda done, total, step: progress.append((done, total,
                                                                                                     step)))
        get_settings.cache_clear()
        dump = {key: (client.dump(key), max(client.pttl(key), 0)) for key in client.scan_iter(count=1000)}
    finally:
        client.flushdb()
        client.close()
    return Materialized(home, dump, out, tuple(progress))


@dataclass(frozen=True)
class SimHome:
    settings: object  # marketintel.settings.Settings on this test's home and Redis
    out: dict  # materialize_all's summary
    progress: tuple[tuple[int, int, str], ...]  # (done, total, step) as on_progress reported them


@pytest.fixture
def sim_home(materialized_sim, mi_home, redis_url, monkeypatch) -> SimHome:
    """This test's MI_HOME and Redis as the session's sim materialization left them: the files copied (the
    warehouse, its analyst copy and the Dagster instance that recorded the run), the published keys restored.
    The test may change anything; the next test gets a fresh copy."""
    from marketintel.settings import Settings
    from pipelines.instance import ensure_dagster_home

    monkeypatch.setenv("MI_SOURCE", "sim")
    monkeypatch.setenv("MI_REDIS_URL", redis_url)
    shutil.copytree(materialized_sim.home, mi_home, dirs_exist_ok=True)
    settings = Settings()
    ensure_dagster_home(settings)  # dagster.yaml names its folders: point it at this copy
    client = redis.Redis.from_url(redis_url)
    with client.pipeline(transaction=False) as pipe:
        for key, (payload, ttl_ms) in materialized_sim.redis_dump.items():
            pipe.restore(key, ttl_ms, payload, replace=True)
        pipe.execute()
    client.close()
    return SimHome(settings, materialized_sim.out, materialized_sim.progress)
