"""Long-lived collaborators, built once per API process and handed to resources."""
from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass

import redis.asyncio as aioredis
from rq import Queue
from sqlalchemy.engine import Engine

from api.key_directory import KeyDirectory
from api.one_trip import OneTrip
from charging import prices as price_lists
from charging.prices import PriceList
from charging.service import Charging
from intel.clock import MarketClock
from intel.providers.base import Provider
from intel.providers.factory import make_clock, make_provider
from jobs.queues import job_queue
from marketintel.lightning.base import LightningBackend
from marketintel.lightning.factory import make_backend
from marketintel.redis_clients import async_client, sync_options
from marketintel.settings import Settings
from warehouse.ledger import Agents, Invoices, Money, Tokens
from warehouse.ledger.db import SQLTimeouts, make_engine

REDIS_CLIENT_NAME = "mi-api"  # how the API's connections show in Redis' CLIENT LIST


@dataclass
class Services:
    settings: Settings
    engine: Engine
    redis: aioredis.Redis
    agents: Agents
    money: Money
    invoices: Invoices
    lightning: LightningBackend
    provider: Provider
    clock: MarketClock
    jobs: Queue
    prices: PriceList
    charging: Charging

    @classmethod
    def build(cls, settings: Settings) -> Services:
        # the API's engine bounds each statement too (workers and migrations may run longer ones)
        engine = make_engine(settings.sqlalchemy_url, SQLTimeouts.for_api(settings))
        provider = make_provider(settings)
        clock = make_clock(settings, provider)
        redis = async_client(settings, REDIS_CLIENT_NAME)
        money, invoices, lightning = Money(engine), Invoices(engine), make_backend(settings)
        prices = price_lists.from_settings(settings)
        jobs = job_queue(settings.effective_redis_url, **sync_options(settings))

        async def on_low_balance(agent_pk: int, request_id: str) -> None:
            # by name: the API does not import the workers' code (jobs/balance.py sends the warning)
            await asyncio.to_thread(jobs.enqueue, "jobs.balance.warn", agent_pk, request_id, result_ttl=0,
                                    description="a low-balance warning")

        return cls(
            settings=settings, engine=engine, redis=redis, agents=Agents(engine), money=money, invoices=invoices,
            lightning=lightning, provider=provider, clock=clock, prices=prices,
            jobs=jobs, charging=Charging(prices, redis, money, invoices, Tokens(engine), lightning, clock,
                                         settings.invoice_expiry_s, on_low_balance),
        )

    @functools.cached_property
    def directory(self) -> KeyDirectory:
        """Who a key belongs to, from Redis (SQL on a miss), over these services' `agents`."""
        return KeyDirectory(self.redis, self.agents)

    @functools.cached_property
    def one_trip(self) -> OneTrip:
        """A request's Redis work before it is served, in one round trip (api/one_trip.py)."""
        return OneTrip(self.redis)

    @property
    def data_source(self) -> str:
        return self.provider.name

    @property
    def simulated(self) -> bool:
        return self.provider.simulated

    async def close(self) -> None:
        """Close the Redis pool and the SQL engine's connections (the app's `process_shutdown`)."""
        await self.redis.aclose()
        await self.money.aclose()  # the connections of its debits and refunds (warehouse/ledger/loop_writer.py)
        await asyncio.to_thread(self.engine.dispose)
        self.jobs.connection.close()
