"""Shared fixtures: a real embedded Redis, a temporary MI_HOME, and (where the binaries exist)
a throwaway PostgreSQL cluster."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import redis

from marketintel.postgres_cluster import throwaway_cluster, unavailable_reason
from marketintel.redis_server import EmbeddedRedis, free_port
from tests.absent import absent
from tests.databases import copy_sqlite, fresh_database, migrated_sqlite_file

pytest_plugins = ["tests.parallel"]  # how the suite runs on xdist workers (`make test`)


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


@pytest.fixture(scope="session")
def pg_url():
    """A throwaway PostgreSQL cluster on a free loopback port (one per worker). Where the binaries are absent the
    test skips, or fails under CI: `make test` installs them."""
    reason = unavailable_reason()
    if reason:
        absent(reason)
    memory = Path("/dev/shm")  # CREATE DATABASE per test is ~10x faster on tmpfs than on a busy disk
    with throwaway_cluster(parent=memory if memory.is_dir() and os.access(memory, os.W_OK) else None) as url:
        yield url


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory):
    """A SQLite ledger migrated once per session: tests get copies of it (`tests.databases.copy_sqlite`)."""
    return migrated_sqlite_file(tmp_path_factory.mktemp("ledger-template") / "ledger.sqlite")


@pytest.fixture
def ledger(request):
    """Which ledger database the settings point at; modules parametrize it (default SQLite)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def settings(mi_home, redis_url, monkeypatch, ledger, request):
    """Settings on the session's Redis, simulated data and a migrated ledger of the `ledger` kind: a copy of the
    session's migrated SQLite file or PostgreSQL template (see tests/databases.py)."""
    monkeypatch.setenv("MI_REDIS_URL", redis_url)
    monkeypatch.setenv("MI_SOURCE", "sim")
    if ledger == "postgresql":
        monkeypatch.setenv("MI_DATABASE_URL", fresh_database(request.getfixturevalue("pg_url"), migrated=True))
    from marketintel.settings import get_settings
    from warehouse.ledger.db import migrate

    get_settings.cache_clear()
    s = get_settings()
    if ledger != "postgresql" and not copy_sqlite(request.getfixturevalue("migrated_sqlite"), s.sqlalchemy_url):
        migrate(s.sqlalchemy_url)  # a URL the test chose itself, or a file that is already there
    return s
