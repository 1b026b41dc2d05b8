"""Shared fixtures: a real embedded Redis, a temporary MI_HOME, and (where the binaries exist)
a throwaway PostgreSQL cluster."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import redis

from marketintel.redis_server import EmbeddedRedis, free_port
from tests.databases import fresh_database


@pytest.fixture(autouse=True)
def no_live_sources_by_default(monkeypatch):
    """The default source is `auto`, which probes the public live sources: tests never reach the
    internet, so they run on `sim` unless they choose a source (live tests point at a local server)."""
    if "MI_SOURCE" not in os.environ:
        monkeypatch.setenv("MI_SOURCE", "sim")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = EmbeddedRedis(free_port(), tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server):
    """A clean database on the session's server for each test."""
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    yield redis_server.url
    client.flushdb()


@pytest.fixture
def mi_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("MI_HOME", str(home))
    from marketintel.settings import get_settings

    get_settings.cache_clear()
    yield home
    get_settings.cache_clear()


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / name).exists():
            return str(folder / name)
    return None


@pytest.fixture(scope="session")
def pg_url():
    """A throwaway PostgreSQL cluster on a free loopback port, or skip where the binaries are absent."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found")
    folder = Path(tempfile.mkdtemp(prefix="mi-pg-"))
    data = folder / "data"
    port = free_port()
    run_as: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        user = "postgres" if _user_exists("postgres") else "nobody"
        shutil.chown(folder, user)
        run_as = ["runuser", "-u", user, "--"]
    subprocess.run(run_as + [initdb, "-D", str(data), "-U", "mi", "--auth=trust", "-E", "UTF8"],
                   check=True, capture_output=True)
    subprocess.run(run_as + [pg_ctl, "-D", str(data), "-l", str(folder / "log"), "-w", "-o",
                             f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off",
                             "start"], check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://mi@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(run_as + [pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True)
        time.sleep(0.2)
        shutil.rmtree(folder, ignore_errors=True)


def _user_exists(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


@pytest.fixture
def ledger(request):
    """Which ledger database the settings point at; modules parametrize it (default SQLite)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def settings(mi_home, redis_url, monkeypatch, ledger, request):
    """Settings on the session's Redis, simulated data and a migrated ledger of the `ledger` kind."""
    monkeypatch.setenv("MI_REDIS_URL", redis_url)
    monkeypatch.setenv("MI_SOURCE", "sim")
    if ledger == "postgresql":
        monkeypatch.setenv("MI_DATABASE_URL", fresh_database(request.getfixturevalue("pg_url")))
    from marketintel.settings import get_settings
    from warehouse.ledger.db import migrate

    get_settings.cache_clear()
    s = get_settings()
    migrate(s.sqlalchemy_url)
    return s
