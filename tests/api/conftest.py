"""The API on real collaborators: embedded Redis, a SQLite ledger, the dev Lightning node, and module
payloads computed by the real `intel` modules on simulated data, published with the real serving cache."""
from __future__ import annotations

import shutil
import time
from datetime import date, timedelta
from pathlib import Path

import falcon.testing
import pytest
import redis

from charging.prices import premium_modules
from intel.frames import Frames
from intel.providers.sim import SimProvider
from intel.pulse import PULSE_INPUTS, compute_pulse
from intel.registry import modules
from tests.made_once import made_once
from warehouse.cache import ServingCache
from warehouse.duckdb_store import Warehouse

AS_OF = date(2026, 11, 20)


@pytest.fixture(scope="session")
def computed_payloads():
    """{module: payload} for every non-ticker module, and the pulse, on sim data as of AS_OF."""
    registry = modules()
    provider = SimProvider(seed=7)
    inputs = sorted({sid for m in registry.values() for sid in m.inputs} | set(PULSE_INPUTS))
    long = provider.observations(inputs, AS_OF - timedelta(days=3700), AS_OF)
    frames = Frames.from_long(long, AS_OF, "sim")
    payloads = {name: m.compute(frames) for name, m in registry.items() if not m.takes_ticker}
    return payloads, compute_pulse(frames, premium_modules(registry))


def publish(redis_url: str, computed_payloads) -> None:
    payloads, pulse = computed_payloads
    cache = ServingCache(redis.Redis.from_url(redis_url))
    cache.publish_modules([(n, p, "sim") for n, p in payloads.items()], True, time.time())
    cache.publish_pulse(pulse, "sim", True, time.time())


@pytest.fixture
def services(settings):
    from api.services import Services

    return Services.build(settings)


@pytest.fixture
def app(settings, services):
    from api.app import create_app

    return create_app(settings, services)


@pytest.fixture
def client(app, settings, computed_payloads):
    publish(settings.effective_redis_url, computed_payloads)
    return falcon.testing.TestClient(app)


@pytest.fixture
def unpublished_client(app):
    return falcon.testing.TestClient(app)


@pytest.fixture
def analyst_copy(settings, services, tmp_path_factory):
    """The sim history of every module input up to the clock, in the warehouse copy time travel reads: written once a
    run (a second a time, for every test that asks a past moment) and copied."""
    def write(folder: Path) -> Path:
        now = services.clock.now()
        inputs = sorted({sid for m in modules().values() for sid in m.inputs})
        with Warehouse(folder / "analyst.duckdb") as store:
            store.write_observations(SimProvider(seed=7).observations(inputs, now.date() - timedelta(days=4000), now),
                                     "sim", now)
        return folder / "analyst.duckdb"

    settings.analyst_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(made_once(tmp_path_factory, "analyst-copy", write), settings.analyst_path)
    return settings.analyst_path
