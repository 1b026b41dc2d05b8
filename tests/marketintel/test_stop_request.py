"""A stop request is never lost, also when its signal lands inside a finalizer, and never cuts short the
stopping that follows it."""
import signal
import subprocess
import sys

import pytest

from marketintel.stop_request import StopRequest


class SignalledWhileFinalized:
    """Delivers a signal while Python runs its `__del__`, as one can land while redis-py closes a connection."""

    def __init__(self, sig):
        self.sig = sig

    def __del__(self):
        signal.raise_signal(self.sig)
        sum(range(100))  # the handler runs between these bytecodes, so its exception is raised in here


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_a_signal_inside_a_finalizer_is_still_a_stop(sig):
    reached_the_end_of_the_step = False
    with StopRequest() as stop:
        with pytest.raises(KeyboardInterrupt):
            with stop.interruptible():
                SignalledWhileFinalized(sig)  # its KeyboardInterrupt is printed as ignored: Python drops it
                reached_the_end_of_the_step = True
        assert reached_the_end_of_the_step and stop.signum == sig


def test_outside_an_interruptible_step_a_signal_is_only_recorded():
    with StopRequest() as stop:
        signal.raise_signal(signal.SIGTERM)
        assert stop.requested
        with pytest.raises(KeyboardInterrupt):
            stop.check()


def test_a_second_signal_does_not_cut_the_stopping_short():
    with StopRequest() as stop:
        with pytest.raises(KeyboardInterrupt):
            with stop.interruptible():
                signal.raise_signal(signal.SIGINT)
                sum(range(100))
        signal.raise_signal(signal.SIGINT)  # while stopping what started: recorded, not raised
        assert stop.signum == signal.SIGINT


def test_the_previous_handlers_come_back():
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with StopRequest():
        assert signal.getsignal(signal.SIGTERM) not in before
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_wait_gives_the_exit_code_or_stops_at_once():
    with StopRequest() as stop:
        assert stop.wait(subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])) == 3
        sleeper = subprocess.Popen(["sleep", "300"])
        try:
            signal.raise_signal(signal.SIGTERM)
            with pytest.raises(KeyboardInterrupt):
                stop.wait(sleeper)
            assert sleeper.poll() is None  # stopping it is the caller's part
        finally:
            sleeper.kill()
            sleeper.wait()
