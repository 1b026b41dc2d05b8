"""The supervisor stops every child (and their children) and reports a child that dies on its own."""
import os
import signal
import sys
import threading
import time

import psutil

from marketintel.supervisor import Child, Supervisor

SLEEPER = [sys.executable, "-c", "import subprocess, time; subprocess.Popen(['sleep', '300']); time.sleep(300)"]


def test_stop_leaves_no_process_behind():
    sup = Supervisor([Child("a", SLEEPER), Child("b", SLEEPER)], env=dict(os.environ), grace_s=5)
    sup.start()
    time.sleep(0.5)
    family = [psutil.Process(c.process.pid) for c in sup.children]
    family += [g for p in family for g in p.children(recursive=True)]
    assert len(family) == 4
    sup.stop()
    time.sleep(0.2)
    assert [p for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE] == []


def test_a_child_that_dies_ends_the_wait_with_1():
    sup = Supervisor([Child("short", [sys.executable, "-c", "raise SystemExit(3)"]), Child("long", SLEEPER)],
                     env=dict(os.environ), grace_s=5)
    sup.start()
    try:
        assert sup.wait() == 1
    finally:
        sup.stop()


def test_sigterm_ends_the_wait_with_0():
    sup = Supervisor([Child("long", SLEEPER)], env=dict(os.environ), grace_s=5)
    sup.start()
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGTERM)).start()
    try:
        assert sup.wait() == 0
    finally:
        sup.stop()
