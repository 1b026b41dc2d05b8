"""The Redis serving cache: latest module and pulse payloads, already serialized, for the API.

Keys (laid out in warehouse/keys.py):
    mi:module:<name>:full | :compact | :prompt   orjson bytes of the rendering, without `_meta`
    mi:module:<name>:meta                        orjson {module, as_of, data_as_of, generated_at, published_at,
                                                        stale_after, data_source, simulated}
    mi:modules                                   set of published module names
    mi:pulse:full, mi:pulse:meta                 the pulse, same shape
    mi:product:<name>:full, :meta                a derived product (regime, parallels, ...), same shape

Each publish is one MULTI/EXEC, so a reader never sees a rendering from one run with the meta of another;
each read is one MGET of the rendering and its meta. Renderings carry no `_meta` so the API can splice its
per-request `_meta` into the bytes (`full[:-1] + b',"_meta":...}'`) without parsing them. The API reads on a
`redis.asyncio` client (`AsyncServingCache`, and the module query's own pipeline).
"""
from __future__ import annotations

from collections.abc import Iterable

import orjson
import redis
import redis.asyncio as aioredis

from intel.formats import render
from warehouse import keys

FORMATS = ("full", "compact", "prompt")
_JSON_OPTS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def _dumps(obj: dict) -> bytes:
    return orjson.dumps(obj, option=_JSON_OPTS, default=str)


class _Keys:
    prefix: str

    def module_key(self, name: str, fmt: str) -> str:
        return keys.module(name, fmt, self.prefix)

    def pulse_key(self, fmt: str) -> str:
        return keys.pulse(fmt, self.prefix)

    def product_key(self, name: str, part: str) -> str:
        return keys.product(name, part, self.prefix)

    @property
    def modules_key(self) -> str:
        return keys.modules(self.prefix)


class ServingCache(_Keys):
    """The writer (the publish asset). The API reads through AsyncServingCache and, for a module query, in the
    pipeline that also counts the free allowance (api/module_queries.py): one round trip either way."""

    def __init__(self, redis_client: redis.Redis, prefix: str = keys.PREFIX):
        self.r = redis_client
        self.prefix = prefix

    @classmethod
    def from_url(cls, url: str, prefix: str = keys.PREFIX) -> ServingCache:
        return cls(redis.Redis.from_url(url), prefix)

    # ---- modules ----------------------------------------------------------------------------------

    def publish_modules(
        self, items: Iterable[tuple[str, dict, str]], simulated: bool, published_at: float,
        stale_after: float | None = None,
    ) -> int:
        """Publish many `(name, payload, data_source)` in one transaction: readers switch from one run's
        results to the next all at once. Rendering happens before MULTI so the transaction is short.
        `stale_after` (epoch seconds, intel.envelope.copy_stale_after): when the API starts labelling the copy
        stale if no newer publish replaced it (the pipeline failing or stopped)."""
        staged: list[tuple[str, dict[str, bytes]]] = []
        for name, payload, data_source in items:
            values = {fmt: _dumps(_without_meta(render(payload, fmt))) for fmt in FORMATS}
            values["meta"] = _dumps(
                {"module": name, "as_of": payload.get("as_of"), "data_as_of": payload.get("data_as_of"),
                 "generated_at": payload.get("generated_at"), "published_at": published_at,
                 **_when_given(stale_after), "data_source": data_source, "simulated": simulated}
            )
            staged.append((name, values))
        if not staged:
            return 0
        pipe = self.r.pipeline(transaction=True)
        for name, values in staged:
            pipe.mset({self.module_key(name, key): value for key, value in values.items()})
        pipe.sadd(self.modules_key, *[name for name, _ in staged])
        pipe.execute()
        return len(staged)

    # ---- pulse ------------------------------------------------------------------------------------

    def publish_pulse(self, payload: dict, data_source: str, simulated: bool, published_at: float,
                      stale_after: float | None = None) -> None:
        self.r.mset({self.pulse_key("full"): _dumps(_without_meta(payload)),
                     self.pulse_key("meta"): _dumps(_meta(payload, data_source, simulated, published_at,
                                                          stale_after))})

    # ---- derived products -------------------------------------------------------------------------

    def publish_products(self, items: Iterable[tuple[str, dict, str]], simulated: bool, published_at: float,
                         stale_after: float | None = None) -> int:
        """`(name, payload, data_source)` each as a full rendering and its meta, in one MSET."""
        values: dict[str, bytes] = {}
        for name, payload, data_source in items:
            values[self.product_key(name, "full")] = _dumps(_without_meta(payload))
            values[self.product_key(name, "meta")] = _dumps(
                {"product": name, **_meta(payload, data_source, simulated, published_at, stale_after)})
        if values:
            self.r.mset(values)
        return len(values) // 2


class AsyncServingCache(_Keys):
    """The API's reads on a `redis.asyncio` client; one round trip each."""

    def __init__(self, redis_client: aioredis.Redis, prefix: str = keys.PREFIX):
        self.r = redis_client
        self.prefix = prefix

    async def published_modules(self) -> list[str]:
        members = await self.r.smembers(self.modules_key)
        return sorted(m.decode() if isinstance(m, bytes) else m for m in members)

    async def get_pulse(self) -> tuple[bytes | None, dict | None]:
        body, meta = await self.r.mget(self.pulse_key("full"), self.pulse_key("meta"))
        return body, (orjson.loads(meta) if meta is not None else None)

    async def get_product(self, name: str) -> tuple[bytes | None, dict | None]:
        """A derived product's rendering (bytes without `_meta`) and its meta, or (None, None) before its
        first publish."""
        body, meta = await self.r.mget(self.product_key(name, "full"), self.product_key(name, "meta"))
        return body, (orjson.loads(meta) if meta is not None else None)


def _meta(payload: dict, data_source: str, simulated: bool, published_at: float,
          stale_after: float | None = None) -> dict:
    return {"as_of": payload.get("as_of"), "data_as_of": payload.get("data_as_of"),
            "generated_at": payload.get("generated_at"), "published_at": published_at,
            **_when_given(stale_after), "data_source": data_source, "simulated": simulated}


def _when_given(stale_after: float | None) -> dict:
    # a copy published without one (a test's, an older publisher's) keeps the meta it always had
    return {} if stale_after is None else {"stale_after": stale_after}


def _without_meta(rendering: dict) -> dict:
    if "_meta" not in rendering:
        return rendering
    return {key: value for key, value in rendering.items() if key != "_meta"}
