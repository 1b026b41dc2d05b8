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
    home = tmp_path_factory.mktemp("e2e-home")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MI_", "DAGSTER_"))}
    api_port = free_port()
    env.update(MI_HOME=str(home), MI_API_PORT=str(api_port), MI_DAGSTER_PORT=str(free_port()),
               MI_REDIS_PORT=str(free_port()), MI_SOURCE="sim", MI_API_WORKERS="2")
    log = home / "up.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([str(BIN / "marketintel"), "up"], env=env, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    svc = Service(home, env, process, api_port, log)
    deadline = time.monotonic() + 180
    while True:
        if process.poll() is not None:
            pytest.fail(f"`marketintel up` exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            if httpx.get(f"{svc.base}/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            pytest.fail(f"/health not healthy within 180 s:\n{log.read_text()[-4000:]}")
        time.sleep(0.5)
    svc.started_in_s = 180 - (deadline - time.monotonic())
    yield svc
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
