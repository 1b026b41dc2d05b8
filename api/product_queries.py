"""Queries of a derived product (the regime view, parallels, the prediction record): its published copy from
Redis, shaped for the request where it takes parameters, charged through the charging service by its price-list
item, with the per-request `_meta` spliced in. A failed request is undone: nothing is charged for it."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

import orjson

from api.errors import APIError
from api.responses import cache_meta, splice_meta
from api.services import Services
from api.usage import UsageRecorder
from charging.attempt import Attempt, Payer
from charging.prices import PricedItem
from warehouse.cache import AsyncServingCache

if TYPE_CHECKING:
    from api.past_answers import PastAnswers

# (the published payload) -> the answer's payload; raises APIError (422) for a parameter it cannot honour
Shape = Callable[[dict], dict]


@dataclass(frozen=True)
class ServedProduct:
    body: bytes
    gate_taken: bool


class ProductQueries:
    def __init__(self, services: Services, serving: AsyncServingCache, usage: UsageRecorder, past: PastAnswers):
        self.services = services
        self.serving = serving
        self.usage = usage
        self.past = past

    async def serve(self, payer: Payer, request_id: str, product: str, item: PricedItem,
                    shape: Shape | None = None, as_of: date | datetime | None = None) -> ServedProduct:
        """The product's published copy for `payer`, charged as `item`. 503 before its first publish (nothing
        charged); `shape` (filters, limits) runs before the charge, so a request it refuses costs nothing.
        `as_of`: the product as of that past moment instead, computed from the warehouse (warehouse/time_travel.py)
        and charged as its past point (`past:<product>`)."""
        if as_of is not None:
            self.past.moment(as_of)  # ValidationFailed (a moment after the clock) before anything is taken
            rendering = await self.past.product_json(product, as_of)
            return await self._charged(Attempt(payer, self.services.prices.past(product), request_id),
                                       orjson.dumps(shape(orjson.loads(rendering))) if shape else rendering,
                                       {"data_source": self.services.data_source,
                                        "simulated": self.services.simulated, "cache": cache_meta(None)})
        rendering, published = await self.serving.get_product(product)
        if rendering is None:
            raise APIError(503, "data_not_ready",
                           f"'{product}' has not been computed yet; the pipeline rebuilds it every "
                           f"{self.services.settings.refresh_minutes} minutes.",
                           headers={"Retry-After": str(self.services.settings.refresh_minutes * 60)})
        shaped = orjson.dumps(shape(orjson.loads(rendering))) if shape else rendering
        return await self._charged(Attempt(payer, item, request_id), shaped, {
            "data_source": published["data_source"], "simulated": published["simulated"],
            "cache": cache_meta(published)})

    async def _charged(self, attempt: Attempt, shaped: bytes, meta: dict) -> ServedProduct:
        meta, gate_taken = await charge_and_meter(self.services, self.usage, attempt, meta)
        return ServedProduct(splice_meta(shaped, meta), gate_taken)


async def charge_and_meter(services: Services, usage: UsageRecorder, attempt: Attempt, meta: dict) -> tuple[dict, bool]:
    """Charge the attempt through the charging service and queue its usage event: (the answer's `_meta`, `meta`
    plus what was charged and how; whether the usage drain gate was taken). Any failure, the caller's cancellation
    included, undoes the charge before it propagates."""
    item = attempt.item
    try:
        charge = await services.charging.charge(attempt)
        meta = {**meta, "price_sats": item.price_sats, "charged_sats": charge.charged_sats,
                "paid_with": charge.paid_with, "free_queries_left": charge.free_queries_left,
                "request_id": attempt.request_id}
        if charge.balance_sats is not None:
            meta["balance_sats"] = charge.balance_sats
        if charge.pool_left_sats is not None:
            meta["pool_left_sats"] = charge.pool_left_sats
        async with services.redis.pipeline(transaction=False) as pipe:
            usage.add_event(pipe, attempt, charge)
            gate_taken = (await pipe.execute())[-1]
    except BaseException:
        await services.charging.undo(attempt)  # shielded: a second cancellation cannot stop it half way
        raise
    return meta, bool(gate_taken)
