"""Long-lived collaborators, built once per API process and handed to resources."""
from __future__ import annotations

from dataclasses import dataclass

import redis.asyncio as aioredis
from sqlalchemy.engine import Engine

from rq import Queue

from intel.clock import MarketClock
from jobs.queues import job_queue
from intel.providers.base import Provider
from intel.providers.factory import make_clock, make_provider
from marketintel.lightning.base import LightningBackend
from marketintel.lightning.factory import make_backend
from marketintel.settings import Settings
from warehouse.ledger.db import make_engine
from warehouse.ledger import Agents, Invoices, Money


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

    @classmethod
    def build(cls, settings: Settings) -> "Services":
        engine = make_engine(settings.sqlalchemy_url)
        provider = make_provider(settings)
        return cls(
            settings=settings,
            engine=engine,
            redis=aioredis.Redis.from_url(settings.effective_redis_url),
            agents=Agents(engine),
            money=Money(engine),
            invoices=Invoices(engine),
            lightning=make_backend(settings),
            provider=provider,
            clock=make_clock(settings, provider),
            jobs=job_queue(settings.effective_redis_url),
        )

    @property
    def data_source(self) -> str:
        return self.provider.name

    @property
    def simulated(self) -> bool:
        return self.provider.simulated

