import asyncio

import redis
import redis.asyncio as aioredis

from warehouse import status


def test_status_round_trip(redis_url):
    client = redis.Redis.from_url(redis_url)
    status.publish_sources(client, {"fred": {"state": "open", "consecutive_failures": 5}})
    status.publish_ingest(client, {"rows_written": 10, "series_failed": {"DGS10": "HTTP 503"}})
    status.publish_freshness(client, {"VIXCLS": {"stale": False, "age_days": 1}})

    async def read():
        return await status.read_all(aioredis.Redis.from_url(redis_url))

    got = asyncio.run(read())
    assert got["sources"]["fred"]["state"] == "open"
    assert got["ingest"]["series_failed"] == {"DGS10": "HTTP 503"}
    assert got["freshness"]["VIXCLS"]["age_days"] == 1
