"""Fixtures of the delivery tests: a wall clock the tests move, and the webhooks repository on it."""
from __future__ import annotations

import pytest

from tests.jobs.webhook_receiver import WallClock
from warehouse.ledger import make_engine
from warehouse.ledger.webhooks import Webhooks


@pytest.fixture
def clock():
    return WallClock()


@pytest.fixture
def hooks(settings, clock):
    engine = make_engine(settings.sqlalchemy_url)
    yield Webhooks(engine, now=clock)
    engine.dispose()
