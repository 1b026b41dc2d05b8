"""The quick-start path against the real processes, then a clean stop that leaves nothing behind (the
`service` fixture stops and checks whatever is left, also when a test fails; start-up interrupted at
each of its steps is in test_start_up_stop.py)."""
from __future__ import annotations

import signal
import time

import httpx
import psutil
import pytest

from tests.e2e.processes import command_line, wait_until_gone

pytestmark = pytest.mark.e2e


def test_quickstart_path(service):
    http = httpx.Client(base_url=service.base, timeout=30)
    pulse = http.get("/api/v1/pulse")
    assert pulse.status_code == 200 and pulse.json()["_meta"]["simulated"] is True

    reg = http.post("/api/v1/agents/register", json={"name": "quickstart-agent"})
    assert reg.status_code == 200
    key = {"X-API-Key": reg.json()["api_key"]}

    free = http.get("/api/v1/intelligence/market_intelligence", headers=key)
    assert free.status_code == 200 and free.json()["_meta"]["charged_sats"] == 0

    challenge = http.get("/api/v1/intelligence/market_intelligence", headers=key)
    assert challenge.status_code == 402
    assert challenge.json()["error"]["invoice"]["payment_request"].startswith("lnbcrt")

    invoice = http.post("/api/v1/payments/create-invoice", json={"amount_sats": 200}, headers=key).json()
    paid = service.cli("dev", "pay", invoice["payment_request"])
    assert paid.returncode == 0, paid.stderr
    preimage = paid.stdout.strip().splitlines()[-1]
    assert http.get(f"/api/v1/payments/verify/{invoice['payment_hash']}", headers=key).json()["settled"] is True

    proof = {"payment_hash": invoice["payment_hash"], "preimage": preimage}
    topup = http.post("/api/v1/agents/topup", json=proof, headers=key)
    assert topup.status_code == 200 and topup.json()["balance_sats"] == 200

    paid_query = http.get("/api/v1/intelligence/market_intelligence", headers=key)
    assert paid_query.status_code == 200 and paid_query.json()["_meta"]["charged_sats"] == 50
    assert http.get("/api/v1/agents/balance", headers=key).json()["balance_sats"] == 150

    again = http.post("/api/v1/agents/topup", json=proof, headers=key)
    assert again.status_code == 409
    assert http.get("/api/v1/agents/balance", headers=key).json()["balance_sats"] == 150

    # the worker writes usage statistics off the request path
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        usage = http.get("/api/v1/agents/me", headers=key).json()["usage"]
        if usage["queries_total"] >= 2:
            break
        time.sleep(0.3)
    assert usage["queries_total"] == 2 and usage["queries_paid"] == 1 and usage["sats_spent"] == 50


def test_sigterm_stops_every_process(service):
    root = psutil.Process(service.process.pid)
    family = [root, *root.children(recursive=True)]
    names = " ".join(" ".join(command_line(p)) for p in family)
    for part in ("redis-server", "gunicorn", "jobs.worker", "dagster-daemon", "dagster-webserver"):
        assert part in names, f"{part} not running under the supervisor"
    service.process.send_signal(signal.SIGTERM)
    assert service.process.wait(60) == 0
    deadline = time.monotonic() + 10  # a group's SIGKILL lands at once, its members die a moment later
    while (alive := [p for p in family if is_alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert alive == [], [" ".join(command_line(p)) for p in alive]
    assert wait_until_gone(service.home) == [], "a process of `up` outside its tree is still running"


def is_alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
