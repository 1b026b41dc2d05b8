"""The API's own dependencies failing under paid load, on real processes: gunicorn (two workers), a private
embedded Redis that is frozen (SIGSTOP) or killed and restarted on its port, and a private PostgreSQL cluster
restarted (`pg_ctl restart -m fast`) with paid module queries in flight.

Each fault function runs one fault on a running `FaultStack` while paced clients query a paid module, and returns
the bench row {"fault", "statuses", "p99_ms", "recover_s", "ledger_ok", "note"} (bench/faults.py prints them) with
the samples behind it, which tests/faults/ holds to the bound: during the fault every answer is a 200 or a 503 with
Retry-After (naming the dependency when it is one), each within BOUND_S; after it, 200s again without a restart;
and the ledger balances, each paid 200 charged exactly once and nothing charged without one."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import redis
from sqlalchemy import text

from marketintel.postgres_cluster import create_database, pg_bin, throwaway_cluster
from marketintel.redis_server import EmbeddedRedis
from tests.e2e.paid_load import (
    MODULE,
    ledger_by_agent,
    migrate,
    publish_module,
    register_and_fund,
    service_env,
    start_gunicorn,
    stop,
)
from warehouse.ledger import check_consistency, make_engine

BOUND_S = 2.0  # the longest a client may wait for any answer while a dependency is down
RECOVER_WITHIN_S = 10.0  # after the part is back, every answer is a 200 again within this
AGENTS = 24
PACE_S = 0.5  # each agent's pause between queries: 2/s, under the free tier's 120 per minute per key
CLIENT_TIMEOUT_S = 15.0  # far above the bound: a wait past BOUND_S is measured, not cut off


@dataclass
class Sample:
    sent: float  # seconds since the load began
    waited: float
    status: str  # "200", "402", "503 dependency_unavailable:redis", "503 data_not_ready", "no answer: ReadTimeout"...
    request_id: str | None = None
    charged_sats: int = 0
    retry_after: str | None = None
    agent_id: str = ""


@dataclass
class Load:
    """Paced paid queries from every agent until `stop` is set; the samples in the order answered."""
    base: str
    agents: list[dict]
    samples: list[Sample] = field(default_factory=list)
    began: float = field(default_factory=time.monotonic)
    stop: threading.Event = field(default_factory=threading.Event)

    def now(self) -> float:
        return time.monotonic() - self.began

    async def run(self) -> None:
        async with httpx.AsyncClient(base_url=self.base, timeout=CLIENT_TIMEOUT_S,
                                     limits=httpx.Limits(max_connections=len(self.agents))) as client:
            await asyncio.gather(*(self._agent(client, agent) for agent in self.agents))

    async def _agent(self, client: httpx.AsyncClient, agent: dict) -> None:
        while not self.stop.is_set():
            sent = self.now()
            try:
                resp = await client.get(f"/api/v1/intelligence/{MODULE}", headers={"X-API-Key": agent["key"]})
            except httpx.TransportError as exc:
                self.samples.append(Sample(sent, self.now() - sent, f"no answer: {type(exc).__name__}",
                                           agent_id=agent["agent_id"]))
            else:
                self.samples.append(sampled(resp, sent, self.now() - sent, agent["agent_id"]))
            await asyncio.sleep(PACE_S)


def sampled(resp: httpx.Response, sent: float, waited: float, agent_id: str) -> Sample:
    body = resp.json() if resp.headers.get("content-type", "").startswith("application/json") else {}
    status = str(resp.status_code)
    if resp.status_code == 200:
        meta = body["_meta"]
        return Sample(sent, waited, status, meta["request_id"], meta["charged_sats"], agent_id=agent_id)
    error = body.get("error", {}) if isinstance(body, dict) else {}
    if resp.status_code >= 500:
        status += f" {error.get('code', '?')}" + (f":{error['dependency']}" if "dependency" in error else "")
    return Sample(sent, waited, status, retry_after=resp.headers.get("retry-after"), agent_id=agent_id)


class FaultStack:
    """gunicorn on a private Redis and a private PostgreSQL database, a module published and agents funded.
    `home` and `env` come from bench/harness.bench_home (or a test's own); the Redis named by env's MI_REDIS_URL
    is found by its pid, so a fault can freeze or kill it and restart another on its port."""

    def __init__(self, home: Path, env: dict, workers: int = 2):
        self.home, self.workers = home, workers
        self.redis_url = env["MI_REDIS_URL"]
        self.port = int(self.redis_url.rsplit(":", 1)[1].split("/")[0])
        self._exit = ExitStack()
        self.env = env
        self.restarted: list[EmbeddedRedis] = []
        self.samples: list[Sample] = []  # every fault's, for the ledger check: the ledger holds all their charges

    def __enter__(self) -> FaultStack:
        try:
            admin_url = self._exit.enter_context(throwaway_cluster(max_connections=100))
            self.database_url = create_database(admin_url, "faults")
            self.env = {**service_env(self.home, self.redis_url, self.database_url),
                        **{k: v for k, v in self.env.items() if k.startswith("MI_") and k != "MI_DATABASE_URL"}}
            self.env["MI_DATABASE_URL"] = self.database_url
            self._settings_env()
            migrate(self.env)
            self.price = publish_module(self.redis_url)
            self.process, self.base = start_gunicorn(self.env, self.workers, log=self.home / "gunicorn.log")
            self.engine = make_engine(self.database_url)
            self.agents = register_and_fund(self.base, AGENTS, self.price * 1000)
        except BaseException:
            self.__exit__()
            raise
        return self

    def _settings_env(self) -> None:
        """This process's settings match the service's (register_and_fund pays with the same dev node)."""
        from marketintel.settings import get_settings

        self._saved = {k: os.environ.get(k) for k in self.env if k.startswith("MI_")}
        os.environ.update({k: v for k, v in self.env.items() if k.startswith("MI_")})
        get_settings.cache_clear()

    def __exit__(self, *_exc) -> None:
        if getattr(self, "process", None) is not None:
            stop(self.process)
        for server in self.restarted:
            server.stop()
        if getattr(self, "engine", None) is not None:
            self.engine.dispose()
        for key, value in getattr(self, "_saved", {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._exit.close()

    # the parts
    def redis_pid(self) -> int:
        return redis.Redis.from_url(self.redis_url, socket_timeout=2).info("server")["process_id"]

    def restart_redis(self) -> None:
        """A new server on the same port (the killed one's data is gone, as after a crash without a save)."""
        self.restarted.append(EmbeddedRedis(self.port, self.home / f"redis-{len(self.restarted) + 1}").start())

    def restart_postgres(self) -> None:
        restart_cluster_of(self.database_url)

    def log_tail(self, chars: int = 4000) -> str:
        log = self.home / "gunicorn.log"
        return log.read_text()[-chars:] if log.exists() else ""


def restart_cluster_of(database_url: str) -> None:
    """`pg_ctl restart -m fast` of the cluster holding `database_url`: every connection is cut."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            data = conn.execute(text("SHOW data_directory")).scalar_one()
    finally:
        engine.dispose()
    owner = Path(data).owner()
    run_as = ["runuser", "-u", owner, "--"] if os.geteuid() == 0 and owner != "root" else []
    subprocess.run(run_as + [pg_bin("pg_ctl"), "-D", data, "-l", str(Path(data).parent / "log"), "-m", "fast",
                             "-w", "restart"], check=True, capture_output=True)


@dataclass
class FaultRun:
    row: dict
    samples: list[Sample]
    fault_window: tuple[float, float]  # load seconds: the part failed, the part was back
    ledger_problems: list[str]


def run_fault(stack: FaultStack, name: str, fail, restore, down_s: float, note: str) -> FaultRun:
    """Load for 2 s, `fail()`, wait `down_s`, `restore()`, load until RECOVER_WITHIN_S later; then the row."""
    load = Load(stack.base, stack.agents)
    thread = threading.Thread(target=lambda: asyncio.run(load.run()), daemon=True)
    thread.start()
    time.sleep(2.0)
    failed_at = load.now()
    fail()
    time.sleep(down_s)
    restore()
    back_at = load.now()
    time.sleep(RECOVER_WITHIN_S)
    load.stop.set()
    thread.join(CLIENT_TIMEOUT_S + 5)
    stack.samples += load.samples
    problems = ledger_problems(stack, stack.samples)
    return FaultRun(row(name, load.samples, (failed_at, back_at), problems, note), load.samples,
                    (failed_at, back_at), problems)


def row(name: str, samples: list[Sample], window: tuple[float, float], problems: list[str], note: str) -> dict:
    during = [s for s in samples if window[0] <= s.sent <= window[1]]
    return {"fault": name, "statuses": dict(Counter(s.status for s in during).most_common()),
            "p99_ms": p99_ms([s.waited for s in during]),
            "recover_s": recover_s(samples, window[1]), "ledger_ok": not problems,
            "note": note if not problems else f"{note}; ledger: {problems[:2]}"}


def p99_ms(waits: list[float]) -> int:
    """The 99th percentile of `waits` (seconds) in milliseconds, the nearest rank; 0 for none."""
    waits = sorted(waits) or [0.0]
    return round(waits[min(len(waits) - 1, int(len(waits) * 0.99))] * 1000)


def recover_s(samples: list[Sample], back_at: float) -> float | None:
    """Seconds from the part's return to the first query sent after it from which every later one was a 200
    (or a 402, a correct refusal); None when the load ended before that."""
    after = sorted((s for s in samples if s.sent >= back_at), key=lambda s: s.sent)
    first_good = None
    for s in after:
        if s.status in ("200", "402"):
            first_good = first_good if first_good is not None else s.sent
        else:
            first_good = None
    return None if first_good is None else round(first_good - back_at, 2)


def ledger_problems(stack: FaultStack, samples: list[Sample]) -> list[str]:
    """The ledger's own check (entries = balances, none negative), and each paid 200 charged exactly once with
    nothing kept for a query that got no 200 (compared by request id, the ledger's reference)."""
    problems = check_consistency(stack.engine)
    paid = Counter(s.request_id for s in samples if s.status == "200" and s.charged_sats)
    problems += [f"request {rid} answered {n} times" for rid, n in paid.items() if n > 1]
    for agent_id, entry in ledger_by_agent(stack.engine).items():
        kept = {rid for rid in entry["queries"] if rid not in entry["refunds"]}
        answered = {s.request_id for s in samples if s.agent_id == agent_id and s.status == "200" and s.charged_sats}
        if kept - answered:
            problems.append(f"{agent_id}: charged without a 200: {sorted(kept - answered)[:3]}")
        if answered - kept:
            problems.append(f"{agent_id}: a paid 200 without its entry: {sorted(answered - kept)[:3]}")
    return problems


def redis_frozen(stack: FaultStack, down_s: float = 4.0) -> FaultRun:
    pid = stack.redis_pid()
    return run_fault(stack, "redis frozen (SIGSTOP)", lambda: os.kill(pid, signal.SIGSTOP),
                     lambda: os.kill(pid, signal.SIGCONT), down_s, f"{down_s:g} s stopped, then SIGCONT")


def redis_killed(stack: FaultStack, down_s: float = 3.0) -> FaultRun:
    def restart() -> None:
        stack.restart_redis()
        publish_module(stack.redis_url)  # what the pipeline's next publish does: the cache died with the server

    return run_fault(stack, "redis killed, restarted", lambda: os.kill(stack.redis_pid(), signal.SIGKILL), restart,
                     down_s, f"SIGKILL, {down_s:g} s down, new server on the port, module republished")


def postgres_restarted(stack: FaultStack) -> FaultRun:
    return run_fault(stack, "postgresql restarted", stack.restart_postgres, lambda: None, 0.0,
                     "pg_ctl restart -m fast with paid queries in flight")


API_FAULTS = [redis_frozen, redis_killed, postgres_restarted]
