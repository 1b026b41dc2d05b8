"""`marketintel up` stopped by SIGTERM or SIGINT at each step of its start-up exits promptly, and every process it
started is gone and its ports free. Each step is recognised in the process table or the home folder as it
happens, never by waiting a guessed time."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from marketintel.redis_server import free_port
from tests.e2e.processes import busy, command_line, described, kill, started_from, wait_until_gone

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
STOP_S = 45  # the longest stop: the supervisor's 15 s grace, the first materialization's 5 s, Redis saving


def child_running(word: str) -> Callable[[subprocess.Popen, Path], bool]:
    return lambda up, home: any(word in " ".join(command_line(p)) for p in psutil.Process(up.pid).children())


POINTS: dict[str, Callable[[subprocess.Popen, Path], bool]] = {
    "launch": lambda up, home: True,  # the interpreter is still starting, then importing
    "redis": child_running("redis-server"),
    "migrate": lambda up, home: (home / "ledger.sqlite").exists(),
    "materialize": child_running("marketintel.cli materialize"),
    "run": lambda up, home: any(home.glob("dagster/logs/*/compute_logs")),  # a step of the first run executes
    "services": child_running("gunicorn"),  # the supervisor is starting the service
}
# Right after launch the interpreter's own defaults end `up` (killed by the signal, or a KeyboardInterrupt out
# of its start-up); once `up` holds its signals it stops and says so (130), or, when the supervisor already
# runs, stops as it does when asked to after start-up (0).
EXIT_CODES = {"services": {130, 0}}


# Both signals at launch, where the interpreter's defaults differ; after it `up` holds both with one handler
# (marketintel/stop_request.py), so each later point takes one of them, the two alternating.
CASES = [("launch", signal.SIGTERM), ("launch", signal.SIGINT),
         *((point, (signal.SIGINT, signal.SIGTERM)[i % 2]) for i, point in enumerate(list(POINTS)[1:]))]


@pytest.mark.parametrize(("point", "sig"), CASES, ids=[f"{p}-{s.name}" for p, s in CASES])
def test_a_signal_during_start_up_stops_everything(tmp_path, point, sig):
    with launched(tmp_path, [str(BIN / "marketintel"), "up"]) as (up, ports):
        deadline = time.monotonic() + 300
        while not POINTS[point](up, tmp_path):
            assert up.poll() is None, f"`up` exited with {up.returncode} before {point}:\n{log(tmp_path)}"
            assert time.monotonic() < deadline, f"start-up never reached {point}"
            time.sleep(0.02)
        up.send_signal(sig)
        code = stopped_within(up, STOP_S, tmp_path)
        assert (code != 0) if point == "launch" else (code in EXIT_CODES.get(point, {130})), log(tmp_path)
        assert_nothing_left(tmp_path, ports)


# The window of issue 12: the handler raised KeyboardInterrupt wherever the signal landed, also inside a
# finalizer, which prints the exception as ignored and carries on: start-up went on to start every service.
# Here the SIGTERM is delivered inside one on purpose, the finalizer of the Redis client `up` probed its new
# server with (redis-py closes its connections there); a marker file shows it was delivered.
IN_A_FINALIZER = """
import os, signal, sys
import redis.client
close = redis.client.Redis.__del__
def signalled_close(self):
    redis.client.Redis.__del__ = close
    open(os.path.join(os.environ["MI_HOME"], "signalled"), "w").close()
    os.kill(os.getpid(), signal.SIGTERM)
    close(self)
redis.client.Redis.__del__ = signalled_close
from marketintel.cli import main
sys.exit(main(["up"]))
"""


def test_a_sigterm_inside_a_finalizer_still_stops_start_up(tmp_path):
    with launched(tmp_path, [sys.executable, "-c", IN_A_FINALIZER]) as (up, ports):
        assert stopped_within(up, STOP_S, tmp_path) == 130, log(tmp_path)
        assert (tmp_path / "signalled").exists()
        assert "first materialization" not in log(tmp_path)  # nothing started after the signal
        assert_nothing_left(tmp_path, ports)


@contextmanager
def launched(home: Path, argv: list[str]) -> Iterator[tuple[subprocess.Popen, list[int]]]:
    """`up` on free ports with `home`; afterwards, pass or fail, it and whatever it started are killed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MI_", "DAGSTER_"))}
    ports = [free_port(), free_port(), free_port()]
    # 3 years of sim history keep the first materialization short: the stop is what is tested, not the data
    env.update(MI_HOME=str(home), MI_API_PORT=str(ports[0]), MI_DAGSTER_PORT=str(ports[1]),
               MI_REDIS_PORT=str(ports[2]), MI_SOURCE="sim", MI_API_WORKERS="1", MI_SIM_YEARS="3")
    with open(home / "up.log", "wb") as out:
        up = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield up, ports
    finally:
        up.kill()
        up.wait()
        kill(started_from(home))


def stopped_within(up: subprocess.Popen, seconds: float, home: Path) -> int:
    try:
        return up.wait(seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`up` still running {seconds} s after the signal:\n{log(home)}")


def assert_nothing_left(home: Path, ports: list[int]) -> None:
    left = wait_until_gone(home)
    assert left == [], f"still running after `up` exited: {described(left)}"
    assert busy(ports) == []


def log(home: Path) -> str:
    return (home / "up.log").read_text(errors="replace")[-4000:]
