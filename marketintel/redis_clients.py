"""Redis clients with the timeouts, pool size and retry policy of the settings (docs/timeouts-and-pools.md).

redis-py's defaults (a 5 s read timeout, 10 retries with up to 1 s backoff) let a frozen Redis hold a request
for 10 s and more. Here a call that gets no reply fails after the read timeout, unretried: a server that did not
answer in 0.5 s will not in the next 0.5 s, and a request makes up to two calls before it knows (the key and its
round trip), which must both fit the 2 s bound. A lost connection (a restarted server, a reset socket) is retried,
on a new connection after a short backoff: that retry is what makes a restart invisible to most clients."""
from __future__ import annotations

import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.retry import Retry

from marketintel.settings import Settings

RETRIED = (RedisConnectionError,)  # not TimeoutError: see above


def _common(settings: Settings) -> dict:
    return {"socket_timeout": settings.redis_socket_timeout_s,
            "socket_connect_timeout": settings.redis_connect_timeout_s,
            "max_connections": settings.redis_max_connections,
            "health_check_interval": settings.redis_health_check_interval_s}


def _backoff(settings: Settings) -> ExponentialWithJitterBackoff:
    return ExponentialWithJitterBackoff(cap=settings.redis_backoff_cap_s, base=settings.redis_backoff_base_s)


def async_options(settings: Settings) -> dict:
    """Keyword arguments for `redis.asyncio.Redis.from_url` (also what `limits`' storage passes on to it)."""
    return {**_common(settings),
            "retry": AsyncRetry(_backoff(settings), settings.redis_retries, supported_errors=RETRIED)}


def sync_options(settings: Settings) -> dict:
    """Keyword arguments for `redis.Redis.from_url`."""
    return {**_common(settings), "retry": Retry(_backoff(settings), settings.redis_retries, supported_errors=RETRIED)}


def async_client(settings: Settings, client_name: str | None = None) -> aioredis.Redis:
    return aioredis.Redis.from_url(settings.effective_redis_url, client_name=client_name, **async_options(settings))


def sync_client(settings: Settings, client_name: str | None = None) -> redis.Redis:
    return redis.Redis.from_url(settings.effective_redis_url, client_name=client_name, **sync_options(settings))


def blocking_twin(client: aioredis.Redis, block_s: float, max_connections: int = 2) -> aioredis.Redis:
    """A client of its own, on the same server and options as `client`, whose read timeout also covers a
    blocking command's `block_s` (XREAD BLOCK, BLPOP): under the short read timeout of the request path it would
    time out while the server is merely waiting for news."""
    kwargs = dict(client.connection_pool.connection_kwargs)
    kwargs["socket_timeout"] = block_s + (kwargs.get("socket_timeout") or 0)
    pool = aioredis.ConnectionPool(connection_class=client.connection_pool.connection_class,
                                   max_connections=max_connections, **kwargs)
    return aioredis.Redis(connection_pool=pool)
