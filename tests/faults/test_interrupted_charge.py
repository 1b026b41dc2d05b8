"""A charge interrupted by a failing dependency, in process on real parts (a private Redis, the ledger on SQLite
and PostgreSQL): the SQL ledger is the source of truth for money, Redis only holds what can be rebuilt (free
allowance counts, the cache, the usage stream). A debit committed before Redis died is refunded in SQL, so the
client's 503 costs nothing; a frozen Redis answers 503 within the bound, naming itself, and the API recovers
by itself when it resumes."""
from __future__ import annotations

import asyncio
import signal
import time

import falcon.testing
import pytest

from bench.fault_cases_api import BOUND_S
from tests.api.agent_helpers import auth, fund, register
from tests.api.usage_faults import ledger_moves
from tests.e2e.paid_load import MODULE, publish_module
from tests.parallel import ALONE
from warehouse.ledger import check_consistency

pytestmark = [pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True),
              pytest.mark.xdist_group(ALONE)]


@pytest.fixture
def services(settings):
    from api.services import Services

    built = Services.build(settings)
    yield built
    built.engine.dispose()


@pytest.fixture
def client(settings, services):
    from api.app import create_app

    publish_module(settings.effective_redis_url)
    return falcon.testing.TestClient(create_app(settings, services))


def test_redis_killed_between_the_debit_and_the_usage_write_refunds_the_debit(client, services, private_redis,
                                                                                monkeypatch):
    key, _ = register(client)
    fund(client, key, 100)
    assert client.simulate_get(f"/api/v1/intelligence/{MODULE}", headers=auth(key)).json["_meta"][
        "paid_with"] == "free_allowance"
    real_debit = services.money.debit_for_query_async

    async def debit_then_redis_dies(*args):
        paid = await real_debit(*args)  # committed in SQL
        private_redis.process.kill()  # then Redis dies before the usage event and the answer
        private_redis.process.wait()
        return paid

    monkeypatch.setattr(services.money, "debit_for_query_async", debit_then_redis_dies)
    started = time.monotonic()
    resp = client.simulate_get(f"/api/v1/intelligence/{MODULE}", headers=auth(key))
    waited = time.monotonic() - started

    assert resp.status_code == 503 and resp.json["error"]["code"] == "dependency_unavailable", resp.text
    assert resp.json["error"]["dependency"] == "redis" and resp.headers["Retry-After"].isdigit()
    assert waited < BOUND_S
    assert [kind for kind, *_ in ledger_moves(services.engine)][-2:] == ["query", "refund"]  # debited, given back
    assert services.money.balance(only_agent_pk(services)) == 100
    assert check_consistency(services.engine) == []


def only_agent_pk(services) -> int:
    from sqlalchemy import select

    from warehouse.ledger.tables import agents

    with services.engine.connect() as conn:
        return conn.execute(select(agents.c.id)).scalar_one()


def test_a_frozen_redis_answers_503_fast_naming_it_and_recovers_on_its_own(client, settings, private_redis):
    key, _ = register(client)
    paths = [("/health", {}), ("/api/v1/pulse", {}), (f"/api/v1/intelligence/{MODULE}", auth(key))]

    async def frozen_then_resumed():
        # one conductor: the app's lifespan runs once, as under gunicorn (TestClient would run it per request,
        # and its shutdown's metrics flush would be timed with the request)
        async with falcon.testing.ASGIConductor(client.app) as conductor:
            private_redis.process.send_signal(signal.SIGSTOP)
            try:
                answers = {path: await timed(conductor, path, headers) for path, headers in paths}
            finally:
                private_redis.process.send_signal(signal.SIGCONT)
            after = {"health_down": (await conductor.simulate_get("/health")).json["down"],  # no pulse published
                     "module": (await conductor.simulate_get(*paths[2][:1], headers=paths[2][1])).status_code}
        return answers, after

    answers, after = asyncio.run(frozen_then_resumed())
    health, waited = answers.pop("/health")
    assert health.status_code == 503 and health.json["down"] == ["redis"] and waited < BOUND_S, (waited, health.text)
    assert health.headers["Retry-After"] == str(settings.dependency_retry_after_s)
    for path, (resp, waited) in answers.items():
        assert resp.status_code == 503 and resp.json["error"]["dependency"] == "redis", (path, resp.text)
        assert resp.headers["Retry-After"] and waited < BOUND_S, (path, waited)
    assert after == {"health_down": [], "module": 200}  # resumed: the same app answers again, no restart


async def timed(conductor, path: str, headers: dict):
    started = time.monotonic()
    resp = await conductor.simulate_get(path, headers=headers)
    return resp, time.monotonic() - started
