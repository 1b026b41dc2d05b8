"""Starts the whole service with `marketintel up` on free ports and a temporary home."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from marketintel.redis_server import free_port
from tests.e2e.processes import busy, described, kill, wait_until_gone

BIN = Path(sys.executable).parent


class Service:
    def __init__(self, home: Path, env: dict, process: subprocess.Popen, api_port: int, log: Path):
        self.home, self.env, self.process, self.log = home, env, process, log
        self.base = f"http://127.0.0.1:{api_port}"

    def cli(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(BIN / "marketintel"), *args], env=self.env, capture_output=True, text=True,
                              timeout=60)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """A running service; afterwards, pass or fail, `up` is asked to stop, whatever it left is killed, and
    the teardown fails if anything was left or a port is still held."""
    home = tmp_path_factory.mktemp("e2e-home")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MI_", "DAGSTER_"))}
    api_port, dagster_port, redis_port = free_port(), free_port(), free_port()
    env.update(MI_HOME=str(home), MI_API_PORT=str(api_port), MI_DAGSTER_PORT=str(dagster_port),
               MI_REDIS_PORT=str(redis_port), MI_SOURCE="sim", MI_API_WORKERS="2")
    log = home / "up.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([str(BIN / "marketintel"), "up"], env=env, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        yield started(Service(home, env, process, api_port, log))
    finally:
        left = stopped(process, home)
        kill(left)
        assert left == [], f"left running after `up`: {described(left)}\n{log.read_text()[-4000:]}"
        assert busy([api_port, dagster_port, redis_port]) == []


def started(svc: Service) -> Service:
    deadline = time.monotonic() + 180
    while True:
        if svc.process.poll() is not None:
            pytest.fail(f"`marketintel up` exited with {svc.process.returncode}:\n{svc.log.read_text()[-4000:]}")
        try:
            if httpx.get(f"{svc.base}/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"/health not healthy within 180 s:\n{svc.log.read_text()[-4000:]}")
        time.sleep(0.5)
    svc.started_in_s = 180 - (deadline - time.monotonic())
    return svc


def stopped(process: subprocess.Popen, home: Path) -> list:
    """SIGTERM to a still running `up` (it stops its children, then exits); what is left once it is gone."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return wait_until_gone(home)
