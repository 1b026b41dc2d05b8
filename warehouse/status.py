"""Operational status in Redis, written by the pipeline, read by /health/dashboard and /api/v1/sla.

Keys (laid out in warehouse/keys.py):
    mi:status:sources     hash  source name -> JSON {state: closed|open|half_open, consecutive_failures,
                                 last_error, last_error_at, last_success_at, requests_used, request_budget}
    mi:status:ingest      JSON  {run_at, data_source, rows_written, series_ok: [...], series_failed: {id: error},
                                 warehouse_error: {path, error, at} after a failed warehouse write, to the next ingest}
    mi:status:freshness   JSON  {series_id: {last_observation, age_days, expected_cadence_days, max_age_days, stale}}
"""
from __future__ import annotations

import orjson
import redis
import redis.asyncio as aioredis

from warehouse.keys import STATUS_FRESHNESS as FRESHNESS
from warehouse.keys import STATUS_INGEST as INGEST
from warehouse.keys import STATUS_SOURCES as SOURCES


def publish_sources(client: redis.Redis, statuses: dict[str, dict]) -> None:
    if statuses:
        client.hset(SOURCES, mapping={name: orjson.dumps(status) for name, status in statuses.items()})


def publish_ingest(client: redis.Redis, report: dict) -> None:
    client.set(INGEST, orjson.dumps(report))


def note_warehouse_error(client: redis.Redis, path: str, error: str, at: str) -> None:
    """A write to the warehouse at `path` failed (a full disk, say): said in the ingest report, which
    /health/dashboard shows as `ingest`, until the next ingest replaces the report."""
    raw = client.get(INGEST)
    report = orjson.loads(raw) if raw else {}
    client.set(INGEST, orjson.dumps({**report, "warehouse_error": {"path": path, "error": error, "at": at}}))


def publish_freshness(client: redis.Redis, freshness: dict[str, dict]) -> None:
    client.set(FRESHNESS, orjson.dumps(freshness))


async def read_all(client: aioredis.Redis) -> dict:
    """{sources, ingest, freshness} in one round trip; missing parts are empty."""
    async with client.pipeline(transaction=False) as pipe:
        sources, ingest, freshness = await pipe.hgetall(SOURCES).get(INGEST).get(FRESHNESS).execute()
    return {
        "sources": {k.decode(): orjson.loads(v) for k, v in (sources or {}).items()},
        "ingest": orjson.loads(ingest) if ingest else None,
        "freshness": orjson.loads(freshness) if freshness else {},
    }
