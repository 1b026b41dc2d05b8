"""compose.yaml's topology as processes on this machine, for tests/deploy/test_cluster.py and bench/cluster.py.

The parts an operator runs: a throwaway PostgreSQL cluster (the ledger, and Dagster's run, event and schedule
storage in its `dagster` schema), a Redis server of its own, and one Lightning node every replica shares (a local
server speaking phoenixd's HTTP API, tests/marketintel/lightning/fake_nodes.py). Then `marketintel migrate` once and
the roles, each the real `marketintel <role>` with a MI_HOME of its own: api-1 and api-2, worker-1 and worker-2, and
the pipelines. The API instances read the pipelines' published warehouse copies through a symlink, as compose mounts
that volume read-only into them.

Like compose's `restart: unless-stopped`, a role that exits while wanted is started again by a watcher thread, and
`events` says which and why. A fault makes a role unwanted to hold it down (an API instance killed, then brought
back)."""
from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil
import redis
from dagster_graphql import DagsterGraphQLClient

from bench.harness import CLI, ROOT
from marketintel.postgres_cluster import create_database, throwaway_cluster
from marketintel.redis_server import EmbeddedRedis, free_port
from tests.e2e.processes import described, kill, wait_until_gone
from tests.marketintel.lightning.fake_nodes import FakePhoenixd

READY_TIMEOUT_S = 180.0
RESTART_DELAY_S = 0.5  # compose waits a little before restarting an exited container; so does the watcher


@dataclass
class Role:
    """One `marketintel <command>` process (and the processes it supervises) with its own MI_HOME."""
    name: str
    command: str
    env: dict
    log: Path
    process: subprocess.Popen | None = None
    wanted: bool = True
    started_at: float = 0.0  # time.monotonic() of the latest start
    # held by the restart policy from its look to its start, and by a fault from its kill or start to its say on
    # `wanted`: else both could start the role (seen: a second api-2 failing to bind, restarted every 7 s)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen([CLI, self.command], env=self.env, cwd=ROOT, stdin=subprocess.DEVNULL,
                                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.started_at = time.monotonic()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def tree(self) -> list[psutil.Process]:
        """The role's process and every process beneath it (gunicorn's master and workers, Dagster's code server
        and run workers): what a container holds."""
        try:
            top = psutil.Process(self.process.pid)
            return [top, *top.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def kill(self) -> None:
        """SIGKILL to every process of the role at once, as `docker kill` ends a container."""
        kill(self.tree())
        self.process.wait()

    def stop(self, grace_s: float = 30.0) -> int | None:
        """SIGTERM (the role stops its children in order), then SIGKILL to whatever is left; the role's exit code
        when it stopped by itself within the grace (None: it had to be killed, or was not running)."""
        if not self.running:
            return None
        leftovers, code = self.tree(), None
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(grace_s)
        except subprocess.TimeoutExpired:
            pass
        kill(leftovers)
        self.process.wait()
        return code

    def log_tail(self, chars: int = 3000) -> str:
        return f"--- {self.name}\n" + (self.log.read_text(errors="replace")[-chars:] if self.log.exists() else "")


@dataclass
class Cluster:
    """The running topology; `with Cluster(folder) as cluster:` starts it and leaves it ready for load."""
    folder: Path
    api_workers: int = 1
    refresh_minutes: int = 60  # the refresh schedule's period: the bench runs the real default (2)
    roles: dict[str, Role] = field(default_factory=dict)
    events: list[str] = field(default_factory=list)  # what the restart policy did, in order
    stopped: dict[str, int | None] = field(default_factory=dict)  # role -> exit code on SIGTERM, after the run
    left: dict[str, list[str]] = field(default_factory=dict)  # role -> processes still there after it stopped

    def __post_init__(self):
        self._exit = ExitStack()
        self._watching = threading.Event()

    # start and stop
    def __enter__(self) -> Cluster:
        try:
            self._start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _start(self) -> None:
        admin_url = self._exit.enter_context(throwaway_cluster(max_connections=150))
        self.database_url = create_database(admin_url, "cluster")
        self.redis_port = free_port()
        self.redis = EmbeddedRedis(self.redis_port, self.folder / "redis").start()
        self.redis_url = self.redis.url
        self.node = self._exit.enter_context(FakePhoenixd())
        base = {k: v for k, v in os.environ.items() if not k.startswith(("MI_", "DAGSTER_", "OTEL_"))}
        base.update(PYTHONPATH=str(ROOT), MI_SOURCE="sim", MI_REDIS_URL=self.redis_url,
                    MI_DATABASE_URL=self.database_url, MI_LIGHTNING_BACKEND="phoenixd", MI_PHOENIXD_URL=self.node.url,
                    MI_PHOENIXD_PASSWORD=self.node.credential, MI_RQ_WORKERS="1",
                    MI_REFRESH_MINUTES=str(self.refresh_minutes), MI_RATE_LIMIT_FREE="10000/minute",
                    MI_PULSE_RATE_PER_MINUTE="100000")  # the load comes from one address, standing in for many
        self.base_env = base
        subprocess.run([CLI, "migrate"], env={**base, "MI_HOME": str(self.folder / "migrate")}, cwd=ROOT,
                       check=True, capture_output=True)
        self.dagster_port = free_port()
        self._role("pipelines", "pipelines", MI_DAGSTER_PORT=str(self.dagster_port))
        warehouse = self.folder / "pipelines" / "warehouse"
        warehouse.mkdir(parents=True, exist_ok=True)
        self.api_ports = []
        for n in (1, 2):
            self.api_ports.append(free_port())
            self._role(f"api-{n}", "api", MI_API_PORT=str(self.api_ports[-1]), MI_API_WORKERS=str(self.api_workers))
            (self.folder / f"api-{n}" / "warehouse").symlink_to(warehouse, target_is_directory=True)
        for n in (1, 2):
            self._role(f"worker-{n}", "worker")
        for role in self.roles.values():
            role.start()
        self.bases = [f"http://127.0.0.1:{port}" for port in self.api_ports]
        for n in (1, 2):
            self.wait_for_api(n)
        self.wait_for_dagster()
        self.wait_for_workers(2)
        threading.Thread(target=self._watch, daemon=True, name="restart-policy").start()

    def _role(self, name: str, command: str, **env) -> None:
        home = self.folder / name
        home.mkdir(parents=True, exist_ok=True)
        self.roles[name] = Role(name, command, {**self.base_env, "MI_HOME": str(home), "MI_METRICS_PORT":
                                                str(free_port()), **env}, self.folder / f"{name}.log")

    def __exit__(self, *_exc) -> None:
        self._watching.set()
        for role in self.roles.values():
            role.wanted = False
        for name in ("api-1", "api-2", "worker-1", "worker-2", "pipelines"):
            if name in self.roles:
                self.stopped[name] = self.roles[name].stop()
        for name in self.roles:  # each role's processes all inherit its MI_HOME
            left = wait_until_gone(self.folder / name)
            self.left[name] = described(left)
            kill(left)
        if getattr(self, "redis", None) is not None:
            self.redis.stop()
        self._exit.close()

    def _watch(self) -> None:
        """compose's `restart: unless-stopped`: a wanted role that exited is started again."""
        while not self._watching.wait(0.2):
            for role in self.roles.values():
                with role.lock:
                    if role.wanted and role.process is not None and role.process.poll() is not None:
                        self.events.append(f"{role.name} exited with code {role.process.returncode}; restarted")
                        time.sleep(RESTART_DELAY_S)
                        role.start()

    # readiness
    def wait_for_api(self, n: int, timeout_s: float = READY_TIMEOUT_S) -> float:
        """Seconds until api-n answers (its /health says 503 until the first publish)."""
        return self._until(lambda: httpx.get(f"{self.bases[n - 1]}/", timeout=2).status_code == 200,
                           timeout_s, f"api-{n}")

    def wait_for_dagster(self, since: float | None = None, timeout_s: float = READY_TIMEOUT_S) -> float:
        """Seconds until the webserver answers and every daemon reports healthy (heartbeats in PostgreSQL), with a
        heartbeat after `since` (wall time) when given: a daemon that died beats no more."""
        return self._until(lambda: self.daemons_healthy(since), timeout_s, "the pipelines role")

    def wait_for_workers(self, count: int, timeout_s: float = READY_TIMEOUT_S) -> float:
        from rq import Worker

        return self._until(lambda: len(Worker.all(connection=redis.Redis.from_url(self.redis_url))) >= count,
                           timeout_s, f"{count} RQ workers")

    def _until(self, ready, timeout_s: float, what: str) -> float:
        began = time.monotonic()
        while time.monotonic() - began < timeout_s:
            try:
                if ready():
                    return time.monotonic() - began
            except (httpx.HTTPError, redis.RedisError, OSError, ValueError):
                pass
            time.sleep(0.25)
        raise RuntimeError(f"{what} not ready in {timeout_s:g} s\n" + self.log_tails())

    def role_metrics(self, name: str) -> str:
        """The Prometheus text a worker or pipelines role serves on its own port."""
        return httpx.get(f"http://127.0.0.1:{self.roles[name].env['MI_METRICS_PORT']}/metrics", timeout=5).text

    def log_tails(self) -> str:
        return "\n".join(role.log_tail() for role in self.roles.values())

    # the pipelines role, through the webserver's GraphQL API (what the Dagster UI uses)
    def dagster(self) -> DagsterGraphQLClient:
        return DagsterGraphQLClient("127.0.0.1", port_number=self.dagster_port, timeout=30)

    def daemons_healthy(self, since: float | None = None) -> bool:
        query = "{ instance { daemonHealth { allDaemonStatuses { daemonType healthy required lastHeartbeatTime } } } }"
        result = httpx.post(f"http://127.0.0.1:{self.dagster_port}/graphql", json={"query": query}, timeout=5)
        data = result.json().get("data")  # None, with `errors`, while its storage is unreachable
        required = [s for s in (data["instance"]["daemonHealth"]["allDaemonStatuses"] if data else []) if s["required"]]
        return bool(required) and all(s["healthy"] and (since is None or (s["lastHeartbeatTime"] or 0) > since)
                                      for s in required)

    def submit(self, job: str) -> str:
        return self.dagster().submit_job_execution(job, tags={"marketintel/submitted-by": "cluster"})

    def run_status(self, run_id: str) -> str:
        return self.dagster().get_run_status(run_id).value

    def wait_for_run(self, run_id: str, timeout_s: float = READY_TIMEOUT_S) -> str:
        """The run's final status (SUCCESS, FAILURE, CANCELED)."""
        final = {"SUCCESS", "FAILURE", "CANCELED"}
        began = time.monotonic()
        while time.monotonic() - began < timeout_s:
            try:
                status = self.run_status(run_id)
            except Exception:  # the webserver restarting with its role: ask again
                status = None
            if status in final:
                return status
            time.sleep(0.5)
        raise RuntimeError(f"run {run_id} unfinished after {timeout_s:g} s\n" + self.roles["pipelines"].log_tail())

    def daemon(self) -> psutil.Process:
        """The pipelines role's dagster-daemon process (not its code server)."""
        for child in psutil.Process(self.roles["pipelines"].process.pid).children():
            if "dagster-daemon" in " ".join(child.cmdline()):
                return child
        raise RuntimeError("the pipelines role runs no dagster-daemon")

    # the parts' own faults
    def start_redis(self) -> None:
        """A new server on the port from the same folder (after `redis.stop()`, which saves): what it had is back."""
        self.redis = EmbeddedRedis(self.redis_port, self.folder / "redis").start()

    def postgres_started_at(self):
        """The server's start time (`pg_postmaster_start_time()`): a restart moves it."""
        from sqlalchemy import text

        from warehouse.ledger import make_engine

        engine = make_engine(self.database_url)
        try:
            with engine.connect() as conn:
                return conn.execute(text("select pg_postmaster_start_time()")).scalar_one()
        finally:
            engine.dispose()

    def restart_postgres(self) -> None:
        from bench.fault_cases_api import restart_cluster_of

        restart_cluster_of(self.database_url)
