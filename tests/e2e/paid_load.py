"""A paid-query load against real gunicorn instances sharing one ledger database and one Redis: agents
registered and funded over the API (the dev Lightning node pays), then concurrent module queries, and the
ledger read back afterwards."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import psutil
import redis
from sqlalchemy import select

from charging.prices import module_price
from intel.frames import Frames
from intel.providers.sim import SimProvider
from intel.registry import modules
from intel.sessions import last_closed_day
from marketintel.redis_server import free_port
from warehouse.cache import ServingCache

ROOT = Path(__file__).resolve().parents[2]
MODULE = "vix"


def publish_module(redis_url: str, name: str = MODULE) -> int:
    """Compute one module on sim data and publish it, as the pipeline's publish step does; its price."""
    module = modules()[name]
    now = last_closed_day(datetime.now(UTC))
    frames = Frames.from_long(SimProvider(seed=7).observations(module.inputs, now - timedelta(days=3700), now),
                              now, "sim")
    ServingCache(redis.Redis.from_url(redis_url)).publish_modules([(name, module.compute(frames), "sim")], True,
                                                                   time.time())
    return module_price(module)


def start_gunicorn(env: dict, workers: int, log: Path | None = None,
                   graceful_timeout_s: int | None = None) -> tuple[subprocess.Popen, str]:
    """The argv `marketintel up` uses, on a free port; returns once the instance answers. Its log (info: worker
    boots and exits, timeouts, application errors; no access lines) goes to `log` when given; a shorter graceful
    timeout where open streams would hold a stop that long."""
    from marketintel.cli import children
    from marketintel.settings import Settings

    port = free_port()
    argv = children(Settings(api_port=port, api_workers=workers))[0].argv + ["--log-level", "info"]
    if graceful_timeout_s is not None:
        argv[argv.index("--graceful-timeout") + 1] = str(graceful_timeout_s)
    with open(log or os.devnull, "ab") as out:
        process = subprocess.Popen(argv, env=env, cwd=ROOT, start_new_session=True, stdout=out,
                                   stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode}")
        try:
            if httpx.get(f"{base}/", timeout=1).status_code == 200:
                return process, base
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError("gunicorn did not start")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def workers_of(process: subprocess.Popen) -> list[int]:
    return [child.pid for child in psutil.Process(process.pid).children()]


def register_and_fund(base: str, count: int, sats: int) -> list[dict]:
    from marketintel.lightning.factory import make_backend
    from marketintel.settings import get_settings

    node = make_backend(get_settings())
    agents = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for i in range(count):
            reg = client.post("/api/v1/agents/register", json={"name": f"load-{i}"}).json()
            headers = {"X-API-Key": reg["api_key"]}
            inv = client.post("/api/v1/payments/create-invoice", json={"amount_sats": sats}, headers=headers).json()
            top = client.post("/api/v1/agents/topup", headers=headers, json={
                "payment_hash": inv["payment_hash"], "preimage": node.pay(inv["payment_request"])})
            assert top.status_code == 200, top.text
            agents.append({"agent_id": reg["agent_id"], "key": reg["api_key"]})
    return agents


@dataclass(frozen=True)
class Dropped:
    """A query that got no HTTP response, as precisely as the client saw it: which exception (ReadTimeout is a
    stall; RemoteProtocolError "Server disconnected ..." a connection the server closed; ConnectError a refused
    connection), the OS error beneath it, and when it happened."""
    agent_id: str
    base: str
    error: str  # type: message, then each cause's
    started_s: float  # since the load began
    waited_s: float  # from sending the request to the error


def describe(exc: BaseException | None) -> str:
    parts = []
    while exc is not None and len(parts) < 5:
        parts.append(f"{type(exc).__name__}: {exc}")
        exc = exc.__cause__ or exc.__context__
    return " <- ".join(parts)


@dataclass
class Outcome:
    ok: dict = field(default_factory=lambda: defaultdict(list))  # agent_id -> [(request_id, charged_sats)]
    refused: dict = field(default_factory=lambda: defaultdict(int))  # agent_id -> 402 count
    errors: list[Dropped] = field(default_factory=list)  # queries that got no response
    other: list = field(default_factory=list)  # (agent_id, status, body)
    waits: list = field(default_factory=list)  # (seconds from sending to the response, since the load began, status)

    @property
    def dropped(self) -> Counter:
        """agent_id -> queries that got no response."""
        return Counter(e.agent_id for e in self.errors)

    def latency(self) -> str:
        """The answers' waits, for a failure's message: a drop beside waits far under the client's timeout is not
        a stalled server."""
        waits = sorted(wait for wait, _, _ in self.waits) or [0.0]
        return (f"{len(self.waits)} answers waited p50 {waits[len(waits) // 2]:.2f} s, "
                f"p99 {waits[int(len(waits) * 0.99)]:.2f} s, max {waits[-1]:.2f} s")

    @property
    def responses(self) -> int:
        return sum(len(v) for v in self.ok.values()) + sum(self.refused.values()) + len(self.errors) + len(self.other)


async def fire(bases: list[str], agents: list[dict], per_agent: int, on_progress=None) -> Outcome:
    """Each agent sends `per_agent` queries one after another; all agents at once, spread over the bases."""
    outcome = Outcome()
    began = time.monotonic()
    limits = httpx.Limits(max_connections=len(agents), max_keepalive_connections=len(agents))
    async with httpx.AsyncClient(timeout=30, limits=limits) as client:
        async def agent_loop(index: int, agent: dict) -> None:
            for n in range(per_agent):
                base = bases[(index + n) % len(bases)]
                sent = time.monotonic()
                try:
                    resp = await client.get(f"{base}/api/v1/intelligence/{MODULE}",
                                            headers={"X-API-Key": agent["key"]})
                except httpx.TransportError as exc:
                    outcome.errors.append(Dropped(agent["agent_id"], base, describe(exc), sent - began,
                                                  time.monotonic() - sent))
                    continue
                outcome.waits.append((time.monotonic() - sent, sent - began, resp.status_code))
                if resp.status_code == 200:
                    meta = resp.json()["_meta"]
                    outcome.ok[agent["agent_id"]].append((meta["request_id"], meta["charged_sats"]))
                elif resp.status_code == 402:
                    outcome.refused[agent["agent_id"]] += 1
                else:
                    outcome.other.append((agent["agent_id"], resp.status_code, resp.text[:200]))
                if on_progress:
                    on_progress(outcome)

        await asyncio.gather(*(agent_loop(i, a) for i, a in enumerate(agents)))
    return outcome


def ledger_by_agent(engine) -> dict[str, dict]:
    """agent_id -> balance, query entries (reference -> amount), refund references."""
    from warehouse.ledger.tables import agents, ledger_entries

    out: dict[str, dict] = {}
    with engine.connect() as conn:
        for row in conn.execute(select(agents.c.id, agents.c.agent_id, agents.c.balance_sats)):
            out[row.agent_id] = {"pk": row.id, "balance": int(row.balance_sats), "queries": {}, "refunds": set()}
        by_pk = {v["pk"]: k for k, v in out.items()}
        for row in conn.execute(select(ledger_entries.c.agent_id, ledger_entries.c.kind, ledger_entries.c.reference,
                                       ledger_entries.c.amount_sats)):
            entry = out[by_pk[row.agent_id]]
            if row.kind == "query":
                entry["queries"][row.reference] = int(row.amount_sats)
            elif row.kind == "refund":
                entry["refunds"].add(row.reference)
    return out


def service_env(home: Path, redis_url: str, database_url: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MI_", "DAGSTER_"))}
    env.update(MI_HOME=str(home), MI_REDIS_URL=redis_url, MI_SOURCE="sim", PYTHONPATH=str(ROOT))
    if database_url:
        env["MI_DATABASE_URL"] = database_url
    return env


def migrate(env: dict) -> None:
    subprocess.run([str(Path(sys.executable).parent / "marketintel"), "migrate"], env=env, check=True,
                   capture_output=True)
