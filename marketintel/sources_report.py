"""`marketintel sources`: each live source with its status, last success, requests used and the series it serves;
each module live, partial or unavailable and why; what each unset key would add (intel/providers/live/coverage.py)."""
from __future__ import annotations

import orjson
import redis
from rich.console import Console
from rich.table import Table

from intel.providers.live import LiveConfig
from intel.providers.live.coverage import coverage
from warehouse.keys import STATUS_INGEST, STATUS_SOURCES


def last_state(url: str) -> tuple[dict | None, dict]:
    """(the last ingest report, the sources' statuses) from Redis; (None, {}) when Redis does not answer."""
    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2)
    try:
        report, statuses = client.get(STATUS_INGEST), client.hgetall(STATUS_SOURCES)
    except redis.RedisError:
        return None, {}
    finally:
        client.close()
    report = orjson.loads(report) if report else None
    if report and report.get("data_source") != "live":
        report = None  # a sim or replay ingest says nothing about the live sources
    return report, {k.decode(): orjson.loads(v) for k, v in statuses.items()}


def report(settings) -> dict:
    ingest, statuses = last_state(settings.effective_redis_url)
    return coverage(LiveConfig.from_settings(settings), ingest, statuses)


def show(settings, console: Console, as_json: bool = False) -> int:
    state = report(settings)
    if as_json:
        console.print_json(orjson.dumps(state).decode())
        return 0
    table = Table("source", "status", "last success", "last error", "requests", "series", title="live sources")
    for name, source in state["sources"].items():
        status = ("refuses scripts" if source["refusing"] else source.get("state", "not run yet")
                  if source["configured"] else "needs a key")
        used = f"{source['requests_used']}/{source['request_budget']}" if "requests_used" in source else ""
        error = source.get("last_error") or ""
        table.add_row(name, status, source.get("last_success_at") or "", error, used, " ".join(source["series"]))
    console.print(table)
    modules = Table("module", "status", "missing series", "settings that bring them", title="modules")
    for name, module in state["modules"].items():
        if module["status"] != "live":
            modules.add_row(name, module["status"], " ".join(module["missing_series"]), " ".join(module["settings"]))
    console.print(modules)
    for setting, series in sorted(state["keys"].items()):
        console.print(f"{setting} would add {len(series)} series: {' '.join(series)}")
    console.print(state["summary"])
    return 0
