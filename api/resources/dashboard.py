"""GET /health/dashboard: module health, circuit breakers, data freshness, service registry, system resources.

Everything is read live: the serving cache and the status keys the pipeline writes (warehouse/status.py),
the request metrics' worker registry (api/metrics.py), RQ's own worker registry, Dagster's daemon
heartbeats in its SQLite storage, and psutil for the machine."""
from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from datetime import UTC, date

import orjson
import psutil
from rq import Worker

from api import metrics
from api import response_docs_routes as r
from api.resources.discovery import ServingReport
from api.services import Services
from api.spec import Documented, api_spec
from intel.providers.live import LiveConfig
from intel.providers.live.coverage import coverage
from intel.registry import modules
from warehouse import status
from warehouse.cache import AsyncServingCache
from warehouse.ledger import ping

# Dagster daemons write a heartbeat every ~30 s; one older than this means the daemon is gone.
DAEMON_LIVE_S = 120


class DashboardResource(ServingReport):
    def __init__(self, services: Services, serving: AsyncServingCache):
        super().__init__(services, serving)
        self.names = sorted(m.name for m in modules().values() if not m.takes_ticker)

    @api_spec.validate(tags=["discovery"], resp=Documented(HTTP_200=r.HealthDashboard))
    async def on_get(self, req, resp):
        """Operational view, no credentials: `modules` (published?, as_of, data_as_of, age, last outcome),
        `circuit_breakers` (per data source; empty when the source has none, as for sim), `data_freshness` (per
        series, with expected cadence), `ingest` (last ingest report), `sources` (live data only: what
        `marketintel sources` shows: each source and its series, each series and module live, partial or
        unavailable and why, what each unset key would add; null otherwise), `services` (API workers, Redis,
        ledger, RQ workers, Dagster daemon) and `system` (CPU, memory, disk of MI_HOME, load average)."""
        now = time.time()
        state = await status.read_all(self.services.redis)
        resp.media = {
            "checked_at": now,
            "data_source": self.services.data_source, "simulated": self.services.simulated,
            "modules": await self._modules(now),
            "circuit_breakers": [{"source": name, **entry} for name, entry in sorted(state["sources"].items())],
            "data_freshness": {"series": state["freshness"],
                               "stale": sorted(s for s, f in state["freshness"].items() if f["stale"])},
            "ingest": state["ingest"],
            "sources": self._coverage(state),
            "services": await self._services(now),
            "system": await asyncio.to_thread(self._system),
        }

    def _coverage(self, state: dict) -> dict | None:
        if self.services.data_source != "live":
            return None
        report = state["ingest"] if (state["ingest"] or {}).get("data_source") == "live" else None
        return coverage(LiveConfig.from_settings(self.services.settings), report, state["sources"])

    async def _modules(self, now: float) -> list[dict]:
        keys = [self.serving.module_key(n, "meta") for n in self.names]
        metas = [orjson.loads(m) if m else None for m in await self.services.redis.mget(keys)]
        dates = [m["as_of"] for m in metas if m and m.get("as_of")]
        latest = max(dates) if dates else None  # the market day of the newest computation
        today = self.services.clock.today()
        out = []
        for name, meta in zip(self.names, metas):
            if meta is None:
                out.append({"module": name, "published": False, "as_of": None, "data_as_of": None, "age_days": None,
                            "published_at": None, "last_outcome": "never_computed"})
                continue
            as_of = meta.get("as_of")
            # A module that failed or lacked data keeps serving its last good result: its as_of falls behind.
            outcome = "computed" if as_of == latest else "stale: serving the last good result"
            out.append({"module": name, "published": True, "as_of": as_of, "data_as_of": meta.get("data_as_of"),
                        "age_days": (today - date.fromisoformat(as_of[:10])).days if as_of else None,
                        "published_at": meta["published_at"],
                        "publish_age_seconds": round(now - meta["published_at"], 1), "last_outcome": outcome})
        return out

    async def _services(self, now: float) -> list[dict]:
        api = await metrics.workers(self.services.redis, now)
        redis_info = await self._redis()
        ledger, rq_workers, dagster = await asyncio.gather(
            asyncio.to_thread(self._ledger), asyncio.to_thread(self._rq), asyncio.to_thread(self._dagster, now))
        return [
            {"name": "api", "status": "up", "pid": os.getpid(),
             "uptime_seconds": round(now - metrics.PROCESS_STARTED, 1),
             "workers": [{**w, "uptime_seconds": round(now - w["started_at"], 1)} for w in api]},
            {"name": "redis", **redis_info},
            {"name": "ledger", **ledger},
            {"name": "rq_workers", **rq_workers},
            {"name": "dagster_daemon", **dagster},
        ]

    async def _redis(self) -> dict:
        try:
            info = await self.services.redis.info()
        except Exception as exc:  # noqa: BLE001  (the dashboard reports any failure)
            return {"status": f"down: {type(exc).__name__}"}
        return {"status": "up", "version": info.get("redis_version"), "uptime_seconds": info.get("uptime_in_seconds"),
                "used_memory_bytes": info.get("used_memory"), "connected_clients": info.get("connected_clients")}

    def _ledger(self) -> dict:
        try:
            seconds = ping(self.services.engine)
        except Exception as exc:  # noqa: BLE001
            return {"status": f"down: {type(exc).__name__}", "dialect": self.services.engine.dialect.name}
        return {"status": "up", "dialect": self.services.engine.dialect.name, "ping_ms": round(seconds * 1000, 2)}

    def _rq(self) -> dict:
        try:
            found = Worker.all(queue=self.services.jobs)
        except Exception as exc:  # noqa: BLE001
            return {"status": f"unknown: {type(exc).__name__}", "workers": []}
        workers = [{"name": w.name, "state": str(w.get_state()), "pid": w.pid,
                    "last_heartbeat": w.last_heartbeat.isoformat() if w.last_heartbeat else None} for w in found]
        return {"status": "up" if workers else "none registered", "queue": self.services.jobs.name,
                "queued_jobs": self.services.jobs.count, "workers": workers}

    def _dagster(self, now: float) -> dict:
        """Heartbeats the daemon writes into the instance's run storage (read-only; no Dagster import)."""
        path = self.services.settings.dagster_home / "storage" / "runs.db"
        if not path.exists():
            return {"status": "not observed", "reason": "no Dagster run storage under MI_HOME"}
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as conn:
                rows = conn.execute("select daemon_type, timestamp from daemon_heartbeats").fetchall()
        except sqlite3.Error as exc:
            return {"status": f"unknown: {exc}"}
        beats = [{"daemon": t, "last_heartbeat": _epoch(ts), "age_seconds": round(now - _epoch(ts), 1)}
                 for t, ts in rows]
        live = [b for b in beats if b["age_seconds"] <= DAEMON_LIVE_S]
        return {"status": "up" if live else ("stale heartbeats" if beats else "no heartbeats"), "daemons": beats}

    def _system(self) -> dict:
        memory = psutil.virtual_memory()
        disk = psutil.disk_usage(str(self.services.settings.home))
        # cpu_percent measures over 0.2 s here (a first call with no interval always says 0).
        return {"cpu_count": psutil.cpu_count(), "cpu_percent": psutil.cpu_percent(interval=0.2),
                "load_average": [round(x, 2) for x in os.getloadavg()],
                "memory": {"total_bytes": memory.total, "available_bytes": memory.available, "percent": memory.percent},
                "disk": {"path": str(self.services.settings.home), "total_bytes": disk.total, "free_bytes": disk.free,
                         "percent": disk.percent},
                "process_rss_bytes": psutil.Process().memory_info().rss}


def _epoch(stamp) -> float:
    """Dagster stores heartbeat times as naive UTC datetimes (text in SQLite)."""
    from datetime import datetime

    if isinstance(stamp, (int, float)):
        return float(stamp)
    return datetime.fromisoformat(str(stamp)).replace(tzinfo=UTC).timestamp()
