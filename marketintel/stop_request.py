"""SIGINT and SIGTERM as a stop request that start-up cannot lose.

A handler that raises KeyboardInterrupt is not enough: Python runs it between any two bytecodes of the main
thread, also inside a finalizer (`__del__`, a weakref callback, the garbage collector), which prints the
exception ("Exception ignored in ...") and carries on; and one raised inside `subprocess.Popen` leaves a
started child that nobody holds. So the handler records the signal, and start-up checks the record between
steps and while it waits. Only a step that starts no process (`interruptible`) is cut short by a raise, and
the record is checked after it too, in case that raise was the one lost."""
from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """Installs its handler for SIGINT and SIGTERM on entry and puts the previous ones back on exit."""

    def __init__(self, poll_s: float = 0.1):
        self.signum: int | None = None
        self.poll_s = poll_s
        self._interruptible = False
        self._previous: dict = {}

    def __enter__(self) -> StopRequest:
        self._previous = {sig: signal.signal(sig, self._on_signal) for sig in SIGNALS}
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def check(self) -> None:
        """KeyboardInterrupt once a stop has been asked for."""
        if self.signum is not None:
            raise KeyboardInterrupt

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """Around a step that starts no process (imports, migration): a signal cuts it short."""
        self.check()
        self._interruptible = True
        try:
            yield
        finally:
            self._interruptible = False
        self.check()

    def wait(self, process: subprocess.Popen) -> int:
        """The process's exit code; KeyboardInterrupt as soon as a stop is asked for."""
        while True:
            self.check()
            try:
                return process.wait(self.poll_s)
            except subprocess.TimeoutExpired:
                pass

    def _on_signal(self, signum, frame) -> None:
        self.signum = signum
        if self._interruptible:
            self._interruptible = False  # raise once: stopping what did start is not cut short by a second signal
            raise KeyboardInterrupt
