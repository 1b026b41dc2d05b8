"""Every ledger test runs on a real SQLite file and on a fresh database in the throwaway PostgreSQL."""
from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import create_engine, make_url, text

from tests.databases import copy_sqlite, fresh_database
from warehouse.ledger import Agents, Invoices, Money, Plans, commitment_plans, make_engine, subscription_plans


@pytest.fixture(params=["sqlite", "postgresql"])
def ledger_url(request, tmp_path):
    """An empty ledger database, or, when the test uses `engine`, a copy of the session's migrated one (the
    state `migrate` would leave, without running it per test: see tests/databases.py)."""
    migrated = "engine" in request.fixturenames
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
        if migrated:
            assert copy_sqlite(request.getfixturevalue("migrated_sqlite"), url)
        yield url
        return
    admin_url = request.getfixturevalue("pg_url")
    url = fresh_database(admin_url, migrated=migrated)
    try:
        yield url
    finally:
        admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def engine(ledger_url):
    engine = make_engine(ledger_url)  # already migrated (ledger_url copies a migrated database for `engine`)
    yield engine
    engine.dispose()


@pytest.fixture
def fund(engine):
    """Top an agent up the way production does: record a credit invoice, then credit it."""
    def fund(agent_pk: int, sats: int) -> int:
        payment_hash = uuid.uuid4().hex * 2
        Invoices(engine).record(payment_hash, "lnbcrt-test", sats, "credit", expires_at=4_000_000_000,
                                agent_pk=agent_pk)
        return Money(engine).credit_topup(agent_pk, payment_hash)
    return fund


@pytest.fixture
def agent(engine):
    agent, _key = Agents(engine).register("test-agent")
    return agent


class Clock:
    """A clock tests move by hand; the ledger classes take it as their `now`."""

    def __init__(self, start: datetime):
        self.moment = start

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, **delta) -> None:
        self.moment += timedelta(**delta)


@pytest.fixture
def clock():
    return Clock(datetime(2026, 11, 20, 12, 0, tzinfo=UTC))


# Small plans, so a test can exhaust them: amounts are multiples of the test prices.
COMMITMENTS = {"small": {"credits_sats": 1000, "discount_percent": 20, "term_days": 90},
               "large": {"credits_sats": 5000, "discount_percent": 40, "term_days": 180}}
SUBSCRIPTIONS = {"basic": {"price_sats": 500, "period_days": 30, "allocation_sats": 600, "burst_sats": 200},
                 "pro": {"price_sats": 2000, "period_days": 30, "allocation_sats": 3000, "burst_sats": 1000}}


@pytest.fixture
def plans(engine, clock):
    return Plans(engine, commitment_plans(COMMITMENTS), subscription_plans(SUBSCRIPTIONS), now=clock)


@pytest.fixture
def money(engine, clock):
    return Money(engine, now=clock)
