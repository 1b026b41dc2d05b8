"""At least once: a real RQ worker (`python -m jobs.worker`) SIGKILLed while the receiver holds its request open
leaves the delivery pending in the outbox; once the claim's lease ends the sweeper queues it again and a second
worker delivers it. The receiver sees the same `webhook-id` twice at most, each request correctly signed."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from tests.jobs.webhook_receiver import Answer, Receiver, sample_event
from warehouse.ledger import Agents, make_engine
from warehouse.ledger.webhooks import Webhooks

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 2  # webhook_timeout_s in the workers: a claim's lease is 3 * 2 + 2 = 8 s


@pytest.fixture
def webhook_settings(settings, monkeypatch):
    monkeypatch.setenv("MI_WEBHOOK_ALLOW_PRIVATE", "true")
    monkeypatch.setenv("MI_WEBHOOK_TIMEOUT_S", str(TIMEOUT_S))
    from marketintel.settings import get_settings

    get_settings.cache_clear()  # the sender is kept per ledger and Redis (jobs/webhooks.py): nothing else to clear
    yield get_settings()


def start_worker(log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "jobs.worker"], cwd=ROOT, env=env,
                            stdout=log.open("wb"), stderr=subprocess.STDOUT)


def kill_hard(worker: subprocess.Popen) -> None:
    """SIGKILL the worker and its work horse (RQ forks one per job, in its own process group)."""
    horses = psutil.Process(worker.pid).children(recursive=True)
    for horse in horses:
        horse.send_signal(signal.SIGKILL)
    worker.send_signal(signal.SIGKILL)
    worker.wait(10)


def stop(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        worker.terminate()  # RQ's warm shutdown
        try:
            worker.wait(15)
        except subprocess.TimeoutExpired:
            kill_hard(worker)


def test_a_delivery_survives_a_worker_killed_mid_send(webhook_settings, tmp_path):
    from jobs.webhooks import enqueue_deliveries, sweep

    engine = make_engine(webhook_settings.sqlalchemy_url)
    hooks = Webhooks(engine)
    hold = threading.Event()
    with Receiver([Answer(200, hold=hold), Answer(200)]) as receiver:
        agent, _ = Agents(engine).register("hooked")
        sub = hooks.subscribe(agent["id"], "free", "market.vix_spike", receiver.url)
        assert enqueue_deliveries([sample_event(1)]) == 1
        [delivery] = hooks.deliveries(agent["id"])
        first = start_worker(tmp_path / "worker-1.log")
        try:
            assert receiver.arrived.wait(60), (tmp_path / "worker-1.log").read_text()
            kill_hard(first)  # mid-send: the receiver has the request and has not answered
        finally:
            stop(first)
        hold.set()
        killed = hooks.delivery(delivery["webhook_id"])
        assert (killed["status"], killed["attempts"]) == ("pending", 1)

        second = start_worker(tmp_path / "worker-2.log")
        try:
            deadline = time.monotonic() + 60
            while hooks.delivery(delivery["webhook_id"])["status"] == "pending" and time.monotonic() < deadline:
                sweep()  # what `python -m jobs.webhooks` does every few seconds
                time.sleep(0.5)
        finally:
            stop(second)
        done = hooks.delivery(delivery["webhook_id"])
        assert done["status"] == "delivered", (tmp_path / "worker-2.log").read_text()
        assert done["attempts"] == 2
        payloads = receiver.verified(sub["secret"])
    assert len(payloads) == 2 and receiver.unique_ids() == {delivery["webhook_id"]}
    assert {p["data"]["id"] for p in payloads} == {"1-0"}
    engine.dispose()
