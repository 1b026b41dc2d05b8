"""Paid queries under load on real gunicorn instances: 50 agents, 1,250 queries, every sat accounted for.

PostgreSQL: two separate gunicorn instances (two workers each) sharing the cluster and one Redis.
SQLite: one instance with two workers on one ledger file. Then the same load with a worker SIGKILLed in
the middle of it."""
from __future__ import annotations

import asyncio
import os
import signal

import pytest

from tests.databases import fresh_database
from tests.e2e.paid_load import (
    fire,
    ledger_by_agent,
    migrate,
    publish_module,
    register_and_fund,
    service_env,
    start_gunicorn,
    stop,
    workers_of,
)
from warehouse.ledger import check_consistency, make_engine

pytestmark = pytest.mark.e2e
AGENTS, PER_AGENT, FUNDING = 50, 25, 1000


@pytest.fixture(params=["sqlite", "postgresql"])
def stack(request, mi_home, redis_url, monkeypatch):
    """(base URLs, ledger engine, gunicorn processes, price) with one module published."""
    database_url = fresh_database(request.getfixturevalue("pg_url")) if request.param == "postgresql" else None
    env = service_env(mi_home, redis_url, database_url)
    for key, value in env.items():
        if key.startswith("MI_"):
            monkeypatch.setenv(key, value)
    migrate(env)
    price = publish_module(redis_url)
    instances = 2 if request.param == "postgresql" else 1
    processes = []
    try:
        for _ in range(instances):
            processes.append(start_gunicorn(env, workers=2))
        from marketintel.settings import get_settings

        get_settings.cache_clear()
        engine = make_engine(get_settings().sqlalchemy_url)
        yield [base for _, base in processes], engine, [p for p, _ in processes], price
    finally:
        for process, _ in processes:
            stop(process)


def test_every_agent_is_charged_exactly_for_its_successful_queries(stack):
    bases, engine, _, price = stack
    agents = register_and_fund(bases[0], AGENTS, FUNDING)
    outcome = asyncio.run(fire(bases, agents, PER_AGENT))

    assert outcome.other == [] and sum(outcome.dropped.values()) == 0
    assert outcome.responses == AGENTS * PER_AGENT >= 1000
    ledger = ledger_by_agent(engine)
    paid_per_agent = FUNDING // price
    for agent in agents:
        ok = outcome.ok[agent["agent_id"]]
        entry = ledger[agent["agent_id"]]
        charged = {rid: sats for rid, sats in ok if sats}
        # one free query, then exactly as many paid ones as the balance covers; the rest refused
        assert len(ok) == 1 + paid_per_agent and outcome.refused[agent["agent_id"]] == PER_AGENT - len(ok)
        assert set(charged.values()) == {price} and len(charged) == paid_per_agent
        # every charged response has its ledger entry, and there is no entry without a served query
        assert {rid: -amount for rid, amount in entry["queries"].items()} == charged
        assert entry["refunds"] == set() and entry["balance"] == FUNDING - price * paid_per_agent
    assert len({rid for ok in outcome.ok.values() for rid, _ in ok}) == sum(len(v) for v in outcome.ok.values())
    assert check_consistency(engine) == []


def test_sigkill_of_a_worker_mid_load_loses_nothing(stack):
    bases, engine, processes, price = stack
    agents = register_and_fund(bases[0], AGENTS, FUNDING)
    victim = workers_of(processes[0])[0]
    killed = []

    def kill_once(outcome):
        if not killed and outcome.responses >= 300:
            os.kill(victim, signal.SIGKILL)
            killed.append(outcome.responses)

    outcome = asyncio.run(fire(bases, agents, PER_AGENT, on_progress=kill_once))
    assert killed, "the load finished before the kill"
    assert all(status in (500, 502, 503) for _, status, _ in outcome.other), outcome.other[:3]

    assert check_consistency(engine) == []  # every balance equals the sum of its entries, none negative
    ledger = ledger_by_agent(engine)
    for agent in agents:
        entry = ledger[agent["agent_id"]]
        kept = {rid: -amount for rid, amount in entry["queries"].items() if rid not in entry["refunds"]}
        charged = {rid: sats for rid, sats in outcome.ok[agent["agent_id"]] if sats}
        # every paid answer has its entry; an entry without an answer can only be a request the kill cut off
        assert charged.items() <= kept.items()
        assert len(kept) - len(charged) <= outcome.dropped[agent["agent_id"]] + \
            sum(1 for a, _, _ in outcome.other if a == agent["agent_id"])
        assert entry["balance"] == FUNDING - price * len(kept)
    # the instance replaced its worker and still serves
    assert victim not in workers_of(processes[0]) and len(workers_of(processes[0])) == 2
