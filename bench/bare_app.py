"""The baselines: a bare Falcon ASGI route returning a small JSON body, and the same route after one Redis
round trip (a GET through redis.asyncio, as the API's clients make it): the floor of any route that reads or
counts shared state once per request."""
import os

import falcon.asgi
import redis.asyncio as aioredis


class Bare:
    async def on_get(self, req, resp):
        resp.media = {"ok": True}


class OneRedisTrip:
    def __init__(self):
        self.redis = None  # made on the worker's event loop, at its first request

    async def on_get(self, req, resp):
        if self.redis is None:
            self.redis = aioredis.Redis.from_url(os.environ["MI_REDIS_URL"])
        await self.redis.get("mi:bench:bare")
        resp.media = {"ok": True}


app = falcon.asgi.App()
app.add_route("/bare", Bare())
app.add_route("/bare/redis", OneRedisTrip())
