"""The `live` fixture: MI_SOURCE=live against the local protocol server, shared by the live ingest tests."""
from __future__ import annotations

import pytest

from intel.providers import factory
from tests.intel.providers.live.protocol_server import ProtocolServer


@pytest.fixture
def live(mi_home, redis_url, monkeypatch):
    with ProtocolServer() as server:
        env = {**server.env(), "MI_SOURCE": "live", "MI_REDIS_URL": redis_url, "MI_LIVE_TIMEOUT_S": "0.3",
               "MI_LIVE_RETRIES": "1", "MI_LIVE_BACKOFF_S": "0.01"}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        server.timeout_sleep_s = 1.0
        yield server
    factory._CACHE.clear()  # drop this server's provider (and its breakers)
