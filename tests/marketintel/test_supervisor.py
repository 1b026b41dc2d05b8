"""The supervisor stops every child (and their children) and reports a child that dies on its own."""
import os
import signal
import sys
import time
from pathlib import Path

import psutil
import pytest

from marketintel.stop_request import StopRequest
from marketintel.supervisor import Child, Supervisor

SLEEPER = [sys.executable, "-c", "import subprocess, time; subprocess.Popen(['sleep', '300']); time.sleep(300)"]


def until(condition, timeout: float = 10.0):
    """The condition's first true value, polled to a deadline."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, "not within the deadline"
        time.sleep(0.02)
    return value


def grandchild(pid: int) -> psutil.Process | None:
    """The child's own `sleep 300`, once it runs (its command line is python's until it has exec'd)."""
    try:
        return next((g for g in psutil.Process(pid).children() if g.cmdline() == ["sleep", "300"]), None)
    except psutil.NoSuchProcess:
        return None


def alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_stop_leaves_no_process_behind():
    sup = Supervisor([Child("a", SLEEPER), Child("b", SLEEPER)], env=dict(os.environ), grace_s=5)
    sup.start()
    try:
        family = [psutil.Process(c.process.pid) for c in sup.children]
        family += [until(lambda pid=p.pid: grandchild(pid)) for p in family]
        assert len(family) == 4
    finally:
        sup.stop()
    assert until(lambda: not [p for p in family if alive(p)])


def test_a_child_that_dies_ends_the_wait_with_1():
    sup = Supervisor([Child("short", [sys.executable, "-c", "raise SystemExit(3)"]), Child("long", SLEEPER)],
                     env=dict(os.environ), grace_s=5)
    with StopRequest() as stop:
        sup.start(stop)
        try:
            assert sup.wait(stop) == 1
        finally:
            sup.stop()


def test_sigterm_ends_the_wait_with_0():
    # the child itself sends the supervisor a real SIGTERM once it runs, and keeps running
    signaller = [sys.executable, "-c",
                 "import os, signal, time; os.kill(os.getppid(), signal.SIGTERM); time.sleep(300)"]
    sup = Supervisor([Child("long", signaller)], env=dict(os.environ), grace_s=5)
    with StopRequest() as stop:
        sup.start(stop)
        try:
            assert sup.wait(stop) == 0
            assert stop.signum == signal.SIGTERM and sup.children[0].process.poll() is None
        finally:
            sup.stop()


def test_no_child_starts_after_a_stop_is_asked_for():
    sup = Supervisor([Child("a", SLEEPER), Child("b", SLEEPER)], env=dict(os.environ), grace_s=5)
    with StopRequest() as stop:
        signal.raise_signal(signal.SIGINT)
        try:
            with pytest.raises(KeyboardInterrupt):
                sup.start(stop)
        finally:
            sup.stop()
    assert [c.process for c in sup.children] == [None, None]


def test_a_niced_child_and_what_it_starts_run_at_a_lower_priority():
    supervisor = Supervisor([Child("low", SLEEPER, nice=7), Child("normal", SLEEPER)], dict(os.environ))
    supervisor.start()
    try:
        low, normal = (psutil.Process(c.process.pid) for c in supervisor.children)
        assert low.nice() == os.nice(0) + 7 and normal.nice() == os.nice(0)
        assert until(lambda: grandchild(low.pid)).nice() == os.nice(0) + 7  # a run the daemon starts
        autogroup = Path(f"/proc/{low.pid}/autogroup")
        if autogroup.exists():  # Linux's autogroups rank sessions as wholes: the child's session is niced too
            assert autogroup.read_text().strip().endswith("nice 7")
    finally:
        supervisor.stop()
