"""The usage drain moves every queued event into SQL once, and frees the gate before reading."""
import time

import redis
import sqlalchemy as sa

from jobs import usage as usage_job
from warehouse import keys
from warehouse.ledger import Agents, make_engine, migrate


def _event(request_id: str, agent_pk: int | None) -> dict:
    return {"request_id": request_id, "module": "vix", "charged_sats": 50 if agent_pk else 0,
            "free": 0 if agent_pk else 1, "agent_pk": agent_pk or "", "client": "c", "ts": time.time()}


def test_drain_writes_each_event_once(mi_home, redis_url, monkeypatch):
    monkeypatch.setenv("MI_REDIS_URL", redis_url)
    from marketintel.settings import get_settings

    get_settings.cache_clear()
    usage_job._collaborators.cache_clear()
    url = get_settings().sqlalchemy_url
    migrate(url)
    agent, _ = Agents(make_engine(url)).register("a")
    client = redis.Redis.from_url(redis_url)
    for i in range(2500):  # more than one batch
        client.xadd(keys.USAGE_STREAM, _event(f"r{i}", agent["id"] if i % 2 else None))
    client.set(keys.USAGE_DRAIN_GATE, 1)
    assert usage_job.drain_usage() == 2500
    assert client.exists(keys.USAGE_DRAIN_GATE) == 0 and client.xlen(keys.USAGE_STREAM) == 0
    client.xadd(keys.USAGE_STREAM, _event("r1", agent["id"]))  # a repeat of a written request id
    assert usage_job.drain_usage() == 1
    with make_engine(url).connect() as conn:
        rows = conn.execute(sa.text("SELECT count(*), sum(charged_sats) FROM usage_events")).one()
    assert tuple(rows) == (2500, 1250 * 50)
    usage_job._collaborators.cache_clear()
