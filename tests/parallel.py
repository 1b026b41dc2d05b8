"""How the suite runs in parallel: `make test` runs pytest-xdist workers with `--dist loadgroup`.

- A test module is the unit of work: its tests run on one worker, in order, so a module-scoped stack (a gunicorn,
  a `marketintel up`) is started once. Modules marked `xdist_group(ALONE)` (the API fault suite, which freezes and
  kills the parts under paid load, and the load tests) form one unit together: they run one after another on one
  worker and never beside each other.
- The long units go out first, longest first (RUN_FIRST, from measured runs: the pipeline faults' eight
  materializations, the fault and load group, the start-up stops, the replays and fuzzing), so none of them is
  left running alone at the end; the rest go out as xdist orders them, the units with the most tests first.
- Each worker has its own temporary folders, embedded Redis and PostgreSQL cluster (the session fixtures), and its
  own range of ports for the servers its tests start (`marketintel.redis_server.free_port`).
- The run closes with each worker's share: how many tests it ran and for how long."""
from __future__ import annotations

import os
from collections import Counter, defaultdict

import pytest

from marketintel.redis_server import PORT_RANGE_ENV

ALONE = "alone"  # the xdist group of the modules that must not run beside one another
RUN_FIRST = (
    "tests/faults/test_pipeline_faults.py",
    ALONE,
    "tests/e2e/test_start_up_stop.py",
    "tests/pipelines/test_materialize.py",
    "tests/api/test_fuzz_openapi.py",
    "tests/pipelines/test_replay_crisis.py",
    "tests/e2e/test_quickstart.py",
    "tests/assets/test_scanner_asset.py",
    "tests/e2e/test_synthesis_e2e.py",
    "tests/e2e/test_event_stream_resume.py",
    "tests/assets/test_regime_asset.py",
)
PORTS_PER_WORKER, FIRST_PORT = 1000, 20000  # gw0 20000-20999, gw1 21000-21999, ... all below 32768


def worker_id() -> str | None:
    """`gw0`, `gw1`, ... in an xdist worker; None in a run without workers (and in the controller)."""
    return os.environ.get("PYTEST_XDIST_WORKER")


def pytest_configure(config):
    worker = worker_id()
    if worker:
        low = FIRST_PORT + PORTS_PER_WORKER * int(worker.removeprefix("gw"))
        os.environ[PORT_RANGE_ENV] = f"{low}-{low + PORTS_PER_WORKER - 1}"
    elif getattr(config.option, "dist", "no") != "no":  # the controller of a parallel run
        config.pluginmanager.register(WorkerShares(), "worker-shares")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    sizes = Counter(unit(item) for item in items)

    def rank(item) -> tuple[int, int]:
        name = unit(item)
        return (RUN_FIRST.index(name) if name in RUN_FIRST else len(RUN_FIRST)), -sizes[name]

    items.sort(key=rank)  # stable: each unit stays in one piece, its tests in their own order


def unit(item) -> str:
    """The unit of work of a test: its xdist group, else its module."""
    group = item.get_closest_marker("xdist_group")
    return str(group.args[0]) if group else item.nodeid.split("::", 1)[0]


@pytest.hookimpl(optionalhook=True)  # `-p no:xdist` runs the suite without xdist's hooks
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadGroupScheduling

    class ModuleOrGroupScheduling(LoadGroupScheduling):
        """loadgroup, but a test without a group goes with its module rather than alone."""

        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return nodeid.split("::", 1)[0] if scope == nodeid else scope

    if config.getvalue("dist") != "loadgroup":
        return None
    config.option.loadscopereorder = False  # hand the units out in the collection's order (above)
    return ModuleOrGroupScheduling(config, log)


class WorkerShares:
    """Each worker's tests and busy seconds, from the reports the controller receives."""

    def __init__(self):
        self.tests: dict[str, int] = defaultdict(int)
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report):
        node = getattr(report, "node", None)
        if node is None:
            return
        worker = node.gateway.id
        self.seconds[worker] += report.duration
        self.tests[worker] += report.when == "call"

    def pytest_terminal_summary(self, terminalreporter):
        if not self.tests:
            return
        shares = ", ".join(f"{w} {self.tests[w]} tests {self.seconds[w]:.0f} s"
                           for w in sorted(self.tests, key=lambda w: int(w.removeprefix("gw"))))
        terminalreporter.write_line(f"workers: {shares}")

