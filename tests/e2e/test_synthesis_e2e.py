"""Ask end to end on the real processes: gunicorn (tests/e2e/paid_load.start_gunicorn), an RQ worker subprocess
(`python -m jobs.worker`), the embedded Redis and a SQLite ledger, every non-ticker module computed on sim data and
published with the real serving cache. The worker's language model is a LOCAL chat-completions server (the real
protocol, POST /v1/chat/completions) whose answer can be held back, so a job can outlast the wait window or be
killed mid-request; the production client is the code under test."""
from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import orjson
import psutil
import pytest
import redis
from rq import Queue
from sqlalchemy import select

from intel.synthesis.published import value_at
from jobs.queues import QUEUE
from jobs.synthesis_failures import sweep_lapsed
from marketintel.settings import Settings
from tests.api.conftest import computed_payloads, publish  # noqa: F401 (the session fixture)
from tests.chat_server import ChatServer
from tests.e2e.paid_load import ROOT, migrate, register_and_fund, service_env, start_gunicorn, stop
from tests.sim_published import compute_published
from warehouse import keys
from warehouse.cache import ServingCache
from warehouse.ledger import check_consistency, make_engine
from warehouse.ledger.tables import ledger_entries

PRICES = {"quick": 200, "standard": 500, "deep": 1000}
QUESTION = "Is the yield curve inverted, and what does it mean for equities?"


@pytest.fixture
def stack(mi_home, tmp_path, redis_url, request):
    """The processes on one home: this test's too (`mi_home`), so the dev Lightning node that pays is theirs. The
    worker writes with the built-in composer (the default), or with the local model for a test marked `llm`."""
    env = service_env(mi_home, redis_url, None)
    env.update(MI_ASK_WINDOW_QUICK_S="1", MI_RATE_LIMIT_FREE="10000/minute", MI_SYNTHESIS_LEASE_S="3")
    migrate(env)
    publish(redis_url, request.getfixturevalue("computed_payloads"))  # tests/api/conftest.py's, imported above
    products = compute_published().products  # the parallels and regime a deep ask cites
    ServingCache(redis.Redis.from_url(redis_url)).publish_products(
        [(name, payload, "sim") for name, payload in products.items()], True, time.time())
    with ChatServer() as model:
        if request.node.get_closest_marker("llm"):
            env.update(MI_LLM_BASE_URL=model.url, MI_LLM_MODEL="local", MI_LLM_API_KEY="local", MI_LLM_TIMEOUT_S="60")
        api, base = start_gunicorn(env, workers=1, log=tmp_path / "gunicorn.log")
        worker = subprocess.Popen([sys.executable, "-m", "jobs.worker"], cwd=ROOT, env=env, start_new_session=True,
                                  stdout=(tmp_path / "worker.log").open("wb"), stderr=subprocess.STDOUT)
        state = {"base": base, "model": model, "worker": worker, "env": env, "home": tmp_path}
        try:
            yield state
        finally:
            stop(api)
            for process in {worker, state["worker"]}:
                stop(process)


def answered(client: httpx.Client, resp: httpx.Response, key: str, deadline_s: float = 90) -> httpx.Response:
    """The final answer of an ask: itself, or its poll target's once the job ends."""
    deadline = time.monotonic() + deadline_s
    while resp.status_code == 202:
        assert time.monotonic() < deadline, resp.text
        time.sleep(0.2)
        resp = client.get(resp.headers["Location"], headers={"X-API-Key": key})
    return resp


def entries(env: dict, reference: str) -> list[tuple[str, int]]:
    engine = make_engine(f"sqlite:///{(env['MI_HOME'] + '/ledger.sqlite')}")
    try:
        with engine.connect() as conn:
            return sorted((r.kind, int(r.amount_sats)) for r in conn.execute(select(
                ledger_entries.c.kind, ledger_entries.c.amount_sats).where(ledger_entries.c.reference == reference)))
    finally:
        engine.dispose()


def test_asks_are_charged_once_and_cite_the_served_figures(stack, redis_url):
    asker, checker = register_and_fund(stack["base"], 2, 20_000)
    published = redis.Redis.from_url(redis_url)
    served: dict[tuple, dict] = {}  # each module (and ticker) fetched once, as any agent would fetch it

    def source_of(client: httpx.Client, fig: dict) -> dict:
        if fig.get("product"):  # a derived product's figure: its published copy, at the path inside it
            return {"data": orjson.loads(published.get(keys.product(fig["module"], "full")))}
        key = (fig["module"], fig.get("ticker"))
        if key not in served:
            module = client.get(f"/api/v1/intelligence/{fig['module']}", headers={"X-API-Key": checker["key"]},
                                params={"ticker": fig["ticker"]} if fig.get("ticker") else None)
            assert module.status_code == 200, module.text
            served[key] = module.json()
        return served[key]

    with httpx.Client(base_url=stack["base"], timeout=90) as client:
        for depth, price in PRICES.items():
            resp = client.post("/api/v1/intelligence/ask", json={"question": QUESTION, "depth": depth},
                               headers={"X-API-Key": asker["key"]})
            resp = answered(client, resp, asker["key"])
            assert resp.status_code == 200, resp.text
            body, request_id = resp.json(), resp.json()["_meta"]["request_id"]
            assert body["_meta"]["charged_sats"] == price and entries(stack["env"], request_id) == [("query", -price)]
            assert body["engine"]["name"] == "builtin" and body["answer"] and body["supporting_data"]
            assert any(f.get("product") for f in body["supporting_data"]) == (depth == "deep")
            for fig in body["supporting_data"]:  # the service serves the same value at the same path
                source = source_of(client, fig)
                assert value_at(source["data"], fig["field"]) == fig["value"], fig
                if not fig.get("product"):
                    assert str(source["as_of"]) == fig["as_of"]
            stranger = client.get(f"/api/v1/synthesis/result/{request_id}", headers={"X-API-Key": checker["key"]})
            assert stranger.status_code == 404  # another agent: as if it did not exist
        balance = client.get("/api/v1/agents/balance", headers={"X-API-Key": asker["key"]}).json()["balance_sats"]
    assert balance == 20_000 - sum(PRICES.values())


@pytest.mark.llm
def test_a_job_slower_than_the_window_is_a_202_then_200_on_poll(stack):
    (asker,) = register_and_fund(stack["base"], 1, 1000)
    stack["model"].delay_s = 3.0  # past the 1 s quick window
    with httpx.Client(base_url=stack["base"], timeout=90) as client:
        began = time.monotonic()
        resp = client.post("/api/v1/intelligence/ask", json={"question": QUESTION, "depth": "quick"},
                           headers={"X-API-Key": asker["key"]})
        assert resp.status_code == 202, resp.text
        assert 0.9 <= time.monotonic() - began < 3.0  # answered when the window closed
        assert resp.headers["Retry-After"] == "2" and resp.headers["Location"] == resp.json()["poll"]
        done = answered(client, resp, asker["key"])
        assert done.status_code == 200 and done.json()["_meta"]["charged_sats"] == 200
        assert entries(stack["env"], resp.json()["request_id"]) == [("query", -200)]


@pytest.mark.llm
def test_a_work_horse_killed_mid_request_is_retried_and_charged_once(stack):
    (asker,) = register_and_fund(stack["base"], 1, 1000)
    model = stack["model"]
    model.delay_s, model.arrived = 60.0, threading.Event()
    with httpx.Client(base_url=stack["base"], timeout=90) as client:
        resp = client.post("/api/v1/intelligence/ask/async", json={"question": QUESTION, "depth": "standard"},
                           headers={"X-API-Key": asker["key"]})
        assert resp.status_code == 202, resp.text
        assert model.arrived.wait(60), (stack["home"] / "worker.log").read_text()[-3000:]
        horses = psutil.Process(stack["worker"].pid).children()
        assert horses, "the worker forked no work horse"
        model.delay_s = 0.0  # the retry's request is answered at once
        for horse in horses:
            horse.send_signal(signal.SIGKILL)  # mid-request: the model holds its answer
        done = answered(client, resp, asker["key"])
        request_id = resp.json()["request_id"]
        assert done.status_code == 200, (stack["home"] / "worker.log").read_text()[-3000:]
        assert done.json()["_meta"]["charged_sats"] == 500
        assert entries(stack["env"], request_id) == [("query", -500)]  # never a second charge, nor a refund
        balance = client.get("/api/v1/agents/balance", headers={"X-API-Key": asker["key"]}).json()["balance_sats"]
    assert balance == 500
    engine = make_engine(f"sqlite:///{stack['env']['MI_HOME']}/ledger.sqlite")
    assert check_consistency(engine) == []
    engine.dispose()


def start_worker(stack) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "jobs.worker"], cwd=ROOT, env=stack["env"], start_new_session=True,
                            stdout=(stack["home"] / "worker-2.log").open("wb"), stderr=subprocess.STDOUT)


@pytest.mark.llm
def test_a_worker_sigkilled_mid_job_is_refunded_once_by_the_sweeper(stack):
    (asker,) = register_and_fund(stack["base"], 1, 1000)
    model, worker = stack["model"], stack["worker"]
    model.delay_s, model.arrived = 60.0, threading.Event()
    with httpx.Client(base_url=stack["base"], timeout=90) as client:
        resp = client.post("/api/v1/intelligence/ask/async", json={"question": QUESTION, "depth": "standard"},
                           headers={"X-API-Key": asker["key"]})
        request_id = resp.json()["request_id"]
        assert model.arrived.wait(60), (stack["home"] / "worker.log").read_text()[-3000:]
        # the worker and its work horse (RQ puts the horse in a session of its own), mid-request: nothing runs on.
        # The worker dies first: killed after its horse, it could see the horse die and fail or requeue the job
        # itself (`on_horse_killed`), leaving the sweeper nothing to do (seen once in seven CI runs)
        horse = psutil.Process(worker.pid).children()
        for process in [psutil.Process(worker.pid), *horse]:
            process.send_signal(signal.SIGKILL)
        worker.wait(10)
        # nobody polls: the sweeper (`python -m jobs.webhooks`) fails and refunds it once the lease (3 s) lapses
        settings = Settings(home=Path(stack["env"]["MI_HOME"]), redis_url=stack["env"]["MI_REDIS_URL"])
        deadline = time.monotonic() + 30
        while (swept := sweep_lapsed(settings)) == 0:
            assert time.monotonic() < deadline
            time.sleep(0.5)
        assert swept == 1 and sweep_lapsed(settings) == 0
        done = client.get(f"/api/v1/synthesis/result/{request_id}", headers={"X-API-Key": asker["key"]})
        assert done.status_code == 500 and done.json()["refunded"] is True, done.text
        assert done.json()["error"]["code"] == "synthesis_failed" and done.json()["_meta"]["charged_sats"] == 0
        assert entries(stack["env"], request_id) == [("query", -500), ("refund", 500)]

        # a new worker, and RQ's own check for jobs of dead workers once their heartbeat runs out: its failure
        # callback finds the refund taken, so nothing is given back twice and the record stays failed
        stack["worker"] = start_worker(stack)
        queue = Queue(QUEUE, connection=redis.Redis.from_url(stack["env"]["MI_REDIS_URL"]))
        queue.started_job_registry.cleanup(timestamp=time.time() + 3600)
        time.sleep(1.0)  # a retry RQ queued, if any, finds the record ended and does nothing
        again = client.get(f"/api/v1/synthesis/result/{request_id}", headers={"X-API-Key": asker["key"]})
        assert again.status_code == 500 and again.json()["refunded"] is True
        assert entries(stack["env"], request_id) == [("query", -500), ("refund", 500)]
        balance = client.get("/api/v1/agents/balance", headers={"X-API-Key": asker["key"]}).json()["balance_sats"]
    assert balance == 1000
    engine = make_engine(f"sqlite:///{stack['env']['MI_HOME']}/ledger.sqlite")
    assert check_consistency(engine) == []
    engine.dispose()
