"""Paid queries under load on real gunicorn: 50 agents, 1,250 queries, every sat accounted for.

One instance with two workers on one SQLite ledger file, then the same load with a worker SIGKILLed in the middle
of it. On PostgreSQL the same promises are kept elsewhere, each once: two instances sharing the ledger under mixed
paid and L402 load with one of them SIGKILLed (tests/deploy/test_cluster.py), and debits racing from several
processes (tests/warehouse/ledger/test_loop_writer.py, test_concurrency.py).

One stack serves the module's tests, each with agents of its own. The SIGKILL test is defined last, so it runs
last on the stack and its killed worker cannot disturb the exact accounting of the other."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from sqlalchemy import Engine

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
from tests.parallel import ALONE
from warehouse.ledger import check_consistency, make_engine

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group(ALONE)]
AGENTS, PER_AGENT, FUNDING = 50, 25, 1000


@dataclass
class Stack:
    bases: list[str]
    engine: Engine
    processes: list[subprocess.Popen]
    price: int
    logs: list[Path]

    def log_tail(self, chars: int = 6000) -> str:
        """The instances' logs, for an assertion's message: what the server saw of a dropped query."""
        return "\n".join(f"--- {log.name}\n{log.read_text()[-chars:]}" for log in self.logs if log.exists())


@pytest.fixture(scope="module")
def stack(tmp_path_factory, redis_server):
    """The gunicorn instance with one module published, on a clean Redis database and a fresh ledger."""
    home = tmp_path_factory.mktemp("paid-load")
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    env = service_env(home, redis_server.url, None)
    from marketintel.settings import get_settings

    processes, engine = [], None
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            if key.startswith("MI_"):
                patch.setenv(key, value)  # the tests' own settings (the dev Lightning node, the ledger) match
        get_settings.cache_clear()
        try:
            migrate(env)
            price = publish_module(redis_server.url)
            logs = [home / "gunicorn-0.log"]
            for log in logs:
                processes.append(start_gunicorn(env, workers=2, log=log))
            engine = make_engine(get_settings().sqlalchemy_url)
            yield Stack([base for _, base in processes], engine, [p for p, _ in processes], price, logs)
        finally:
            for process, _ in processes:
                stop(process)
            if engine is not None:
                engine.dispose()
            client.flushdb()
            get_settings.cache_clear()


def test_every_agent_is_charged_exactly_for_its_successful_queries(stack):
    agents = register_and_fund(stack.bases[0], AGENTS, FUNDING)
    workers = [set(workers_of(p)) for p in stack.processes]
    outcome = asyncio.run(fire(stack.bases, agents, PER_AGENT))

    # a dropped query names its exception; the server's log says what it saw meanwhile
    assert outcome.other == [] and outcome.errors == [], f"{outcome.latency()}\n{stack.log_tail()}"
    assert [set(workers_of(p)) for p in stack.processes] == workers, "a worker was replaced during the load"
    assert outcome.responses == AGENTS * PER_AGENT >= 1000
    ledger = ledger_by_agent(stack.engine)
    paid_per_agent = FUNDING // stack.price
    for agent in agents:
        ok = outcome.ok[agent["agent_id"]]
        entry = ledger[agent["agent_id"]]
        charged = {rid: sats for rid, sats in ok if sats}
        # one free query, then exactly as many paid ones as the balance covers; the rest refused
        assert len(ok) == 1 + paid_per_agent and outcome.refused[agent["agent_id"]] == PER_AGENT - len(ok)
        assert set(charged.values()) == {stack.price} and len(charged) == paid_per_agent
        # every charged response has its ledger entry, and there is no entry without a served query
        assert {rid: -amount for rid, amount in entry["queries"].items()} == charged
        assert entry["refunds"] == set() and entry["balance"] == FUNDING - stack.price * paid_per_agent
    assert len({rid for ok in outcome.ok.values() for rid, _ in ok}) == sum(len(v) for v in outcome.ok.values())
    assert check_consistency(stack.engine) == []


def test_sigkill_of_a_worker_mid_load_loses_nothing(stack):
    agents = register_and_fund(stack.bases[0], AGENTS, FUNDING)
    victim = workers_of(stack.processes[0])[0]
    killed = []

    def kill_once(outcome):
        if not killed and outcome.responses >= 300:
            os.kill(victim, signal.SIGKILL)
            killed.append(outcome.responses)

    outcome = asyncio.run(fire(stack.bases, agents, PER_AGENT, on_progress=kill_once))
    assert killed, "the load finished before the kill"
    assert all(status in (500, 502, 503) for _, status, _ in outcome.other), outcome.other[:3]

    assert check_consistency(stack.engine) == []  # every balance equals the sum of its entries, none negative
    ledger = ledger_by_agent(stack.engine)
    for agent in agents:
        entry = ledger[agent["agent_id"]]
        kept = {rid: -amount for rid, amount in entry["queries"].items() if rid not in entry["refunds"]}
        charged = {rid: sats for rid, sats in outcome.ok[agent["agent_id"]] if sats}
        # every paid answer has its entry; an entry without an answer can only be a request the kill cut off
        assert charged.items() <= kept.items()
        assert len(kept) - len(charged) <= outcome.dropped[agent["agent_id"]] + \
            sum(1 for a, _, _ in outcome.other if a == agent["agent_id"])
        assert entry["balance"] == FUNDING - stack.price * len(kept)
    # the instance replaced its worker and still serves
    assert victim not in workers_of(stack.processes[0]) and len(workers_of(stack.processes[0])) == 2
