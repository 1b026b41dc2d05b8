"""The supervisor stops every child (and their children), reports a child that dies on its own, and starts a child
only once the one before it is ready when that one says how to tell."""
import os
import signal
import sys
import threading
import time

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


def test_the_next_child_starts_once_the_one_before_is_ready(tmp_path):
    flag, seen = tmp_path / "ready", tmp_path / "seen"
    maker = [sys.executable, "-c", f"import pathlib, time; time.sleep(0.5); pathlib.Path({str(flag)!r}).touch(); "
             "time.sleep(300)"]
    looker = [sys.executable, "-c", f"import pathlib, time; pathlib.Path({str(seen)!r}).write_text("
              f"str(pathlib.Path({str(flag)!r}).exists())); time.sleep(300)"]
    sup = Supervisor([Child("slow", maker, ready=flag.exists), Child("next", looker)], env=dict(os.environ),
                     grace_s=5)
    try:
        sup.start()
        assert until(lambda: seen.exists() and seen.read_text()) == "True"  # it found the first one ready
    finally:
        sup.stop()


def test_a_child_that_exits_before_it_is_ready_fails_the_start():
    sup = Supervisor([Child("broken", [sys.executable, "-c", "raise SystemExit(4)"], ready=lambda: False),
                      Child("never", SLEEPER)], env=dict(os.environ), grace_s=5)
    try:
        with pytest.raises(RuntimeError, match="broken exited with code 4 while starting"):
            sup.start()
        assert sup.children[1].process is None
    finally:
        sup.stop()


def test_a_stop_while_waiting_for_a_child_interrupts_the_start():
    sup = Supervisor([Child("waiting", SLEEPER, ready=lambda: False), Child("never", SLEEPER)],
                     env=dict(os.environ), grace_s=5)
    with StopRequest() as stop:
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM))  # the signal arrives mid-wait
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                sup.start(stop)
            assert sup.children[0].process is not None and sup.children[1].process is None
        finally:
            timer.join()
            sup.stop()
