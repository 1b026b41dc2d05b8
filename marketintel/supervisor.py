"""Runs the service's processes and stops them all together.

Each child gets its own process group, so a terminal's Ctrl-C reaches only the supervisor, which then
stops every group in order (SIGTERM, then SIGKILL after a grace period) and the embedded Redis last.
Signals reach it as a `StopRequest`, never as an exception: one raised inside `Popen` would lose a child."""
from __future__ import annotations

import logging
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field

from marketintel.stop_request import StopRequest

log = logging.getLogger("marketintel.supervisor")


@dataclass
class Child:
    name: str
    argv: list[str]
    nice: int = 0  # added to the process's niceness (and so to everything it starts): a lower CPU priority
    process: subprocess.Popen | None = field(default=None, repr=False)


class Supervisor:
    def __init__(self, children: list[Child], env: dict[str, str], grace_s: float = 15.0):
        self.children = children
        self.env = env
        self.grace_s = grace_s

    def start(self, stop: StopRequest | None = None) -> None:
        """Starts the children in order; KeyboardInterrupt before the next one once a stop is asked for
        (those started are held, for `stop()`)."""
        for child in self.children:
            if stop is not None:
                stop.check()
            child.process = subprocess.Popen(child.argv, env=self.env, stdin=subprocess.DEVNULL, start_new_session=True,
                                             preexec_fn=_niced(child.nice) if child.nice else None)
            log.info("started %s (pid %d)", child.name, child.process.pid)

    def wait(self, stop: StopRequest) -> int:
        """Blocks until a stop is asked for (0) or a child exits on its own (1)."""
        while not stop.requested:
            for child in self.children:
                code = child.process.poll()
                if code is not None:
                    log.error("%s exited with code %s; stopping the service", child.name, code)
                    return 1
            time.sleep(stop.poll_s)
        return 0

    def stop(self) -> None:
        running = [c for c in self.children if c.process is not None and c.process.poll() is None]
        for child in running:
            _signal_group(child.process, signal.SIGTERM)
        deadline = time.monotonic() + self.grace_s
        for child in running:
            try:
                child.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("%s did not stop in %.0f s; killing it", child.name, self.grace_s)
        for child in self.children:  # anything left in a group (also grandchildren) goes now
            if child.process is not None:
                _signal_group(child.process, signal.SIGKILL)
                child.process.wait()
        log.info("all processes stopped")


def _niced(increment: int):
    def lower_priority() -> None:  # in the child, before it execs: inherited by all it starts
        os.nice(increment)
        # Linux's autogroups (one per session: each child starts one) share the CPU as groups whatever their
        # processes' niceness, so the group's own niceness is what ranks it against the API's group
        try:
            with open("/proc/self/autogroup", "w") as group:
                group.write(str(increment))
        except OSError:  # no autogroups (or not Linux): the niceness alone ranks it
            pass
    return lower_priority


def _signal_group(process: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass
