"""The processes a `marketintel up` started, found wherever they sit in the process tree by now.

Its children run in sessions of their own and outlive a killed `up` under init, so a walk down from `up`
misses exactly the leaks that matter. Every process it starts inherits MI_HOME, and each test gives `up` a
home of its own; the embedded Redis writes its title over its environment, but works in `<home>/redis`."""
from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import psutil


def started_from(home: Path) -> list[psutil.Process]:
    """The live (not zombie) processes that belong to the `up` run with MI_HOME=home."""
    homes = {str(home), str(Path(home).resolve())}
    found = []
    for process in psutil.process_iter():
        if process.pid == os.getpid():
            continue
        try:
            if process.status() == psutil.STATUS_ZOMBIE:
                continue
            if process.environ().get("MI_HOME") in homes or any(process.cwd().startswith(h) for h in homes):
                found.append(process)
        except psutil.Error:  # ended while listed, or not ours to read
            pass
    return found


def command_line(process: psutil.Process) -> list[str]:
    """A process's command line, or none for one that ended since it was listed."""
    try:
        return process.cmdline()
    except psutil.NoSuchProcess:
        return []


def described(processes: list[psutil.Process]) -> list[str]:
    return [f"{process.pid} {' '.join(command_line(process))[:160]}" for process in processes]


def wait_until_gone(home: Path, timeout: float = 10.0) -> list[psutil.Process]:
    """Waits, to a deadline, for every process of that `up` to end; returns those still there. A group's
    SIGKILL lands at once but its members die a moment later, so a single look could see them."""
    deadline = time.monotonic() + timeout
    while (left := started_from(home)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def kill(processes: list[psutil.Process]) -> None:
    for process in processes:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(processes, timeout=10)


def busy(ports: list[int]) -> list[int]:
    """The ports something still listens on (a closing connection's TIME_WAIT does not count)."""
    taken = []
    for port in ports:
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                taken.append(port)
    return taken
