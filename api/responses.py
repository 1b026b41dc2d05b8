"""Building response bodies: the cached payload bytes with a per-request `_meta` spliced in."""
from __future__ import annotations

import time

import orjson

from intel.envelope import copy_staleness


def splice_meta(payload_json: bytes, meta: dict) -> bytes:
    """`{...}` + `_meta` without re-serializing the payload (the cache holds it already serialized)."""
    return payload_json[:-1] + b',"_meta":' + orjson.dumps(meta) + b"}"


def with_meta(payload: dict, meta: dict) -> bytes:
    return orjson.dumps({**payload, "_meta": meta})


def cache_meta(published: dict | None) -> dict:
    if not published:
        return {"source": "computed", "age_seconds": 0.0}
    published_at, now = float(published.get("published_at", 0.0)), time.time()
    return {"source": "redis", "age_seconds": round(max(0.0, now - published_at), 3),
            "published_at": published_at, **copy_staleness(published, now)}


def send_json(resp, body: bytes, status: int = 200) -> None:
    resp.status = status
    resp.content_type = "application/json"
    resp.data = body
