"""Fixtures for the fault suite: parts of the service's own that a test may freeze, kill and restart, never the
session's shared Redis or PostgreSQL cluster."""
from __future__ import annotations

import pytest

from marketintel.redis_server import EmbeddedRedis, free_port


@pytest.fixture
def private_redis(tmp_path):
    """An embedded Redis of this test's own (the root `redis_url` is overridden to it below)."""
    server = EmbeddedRedis(free_port(), tmp_path / "private-redis").start()
    yield server
    if server.process.poll() is None:
        server.process.send_signal(18)  # SIGCONT: a test that froze it and failed must not leave stop() waiting
    server.stop()


@pytest.fixture
def redis_url(private_redis):
    """The root `settings` fixture builds on this: here, on the private server."""
    return private_redis.url
