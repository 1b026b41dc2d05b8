"""Reading the serving cache as the API does (one MGET of a rendering and its meta), for tests that check
what the pipeline published. Production reads it through AsyncServingCache and api/module_queries.py."""
from __future__ import annotations

import orjson
import redis

from warehouse import keys


class CacheReader:
    def __init__(self, client: redis.Redis, prefix: str = keys.PREFIX):
        self.r, self.prefix = client, prefix

    @classmethod
    def from_url(cls, url: str, prefix: str = keys.PREFIX) -> CacheReader:
        return cls(redis.Redis.from_url(url), prefix)

    def get_module(self, name: str, fmt: str = "full") -> tuple[bytes | None, dict | None]:
        """(rendering bytes, meta) in one round trip; (None, None) when never published."""
        body, meta = self.r.mget(keys.module(name, fmt, self.prefix), keys.module(name, "meta", self.prefix))
        return body, (orjson.loads(meta) if meta is not None else None)

    def get_pulse(self) -> tuple[bytes | None, dict | None]:
        body, meta = self.r.mget(keys.pulse("full", self.prefix), keys.pulse("meta", self.prefix))
        return body, (orjson.loads(meta) if meta is not None else None)

    def published_modules(self) -> list[str]:
        return sorted(m.decode() for m in self.r.smembers(keys.modules(self.prefix)))
