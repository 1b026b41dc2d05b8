"""Publish: the latest results (modules, the pulse, derived products), already rendered and serialized, into
Redis; then the analyst copy."""

import time

from dagster import AssetExecutionContext, AssetKey, MaterializeResult, MetadataValue, asset

from assets.checks import series_freshness
from assets.modules import scheduled_modules
from assets.pulse import pulse
from assets.resources import MarketResource, ServingCacheResource, WarehouseResource
from intel.envelope import copy_stale_after
from warehouse.status import publish_freshness


def build_publish_asset(products: tuple = ()):
    """`products`: the derived-product assets (regime, parallels, predictions...) publish waits for."""
    names = [m.name for m in scheduled_modules()]

    @asset(group_name="publish", deps=[pulse, *products, *(AssetKey(n) for n in names)], kinds={"redis", "duckdb"},
           description="Latest module payloads and the pulse into the Redis serving cache; refresh analyst.duckdb.")
    def publish(context: AssetExecutionContext, market: MarketResource, warehouse: WarehouseResource,
                serving: ServingCacheResource) -> MaterializeResult:
        cache = serving.cache()
        source, simulated = market.provider.name, market.provider.simulated
        published_at = time.time()
        # past this, with no newer publish (runs failing or stopped), the API labels these copies stale
        stale_after = copy_stale_after(published_at, market.settings().refresh_minutes)
        with warehouse.open() as store:
            # Only results of the source in use: a home switched from sim to replay never serves sim numbers.
            results = store.latest_module_results(source)
            latest_pulse = store.latest_pulse(source)
            products = store.latest_products(source)
            # A module that failed today keeps serving its last good result; its meta `as_of` says how old.
            items = [(n, results[n].payload, results[n].data_source) for n in names if n in results]
            count = cache.publish_modules(items, simulated, published_at, stale_after)
            if latest_pulse is not None:
                cache.publish_pulse(latest_pulse.payload, latest_pulse.data_source, simulated, published_at,
                                    stale_after)
            cache.publish_products([(n, p.payload, p.data_source) for n, p in sorted(products.items())], simulated,
                                   published_at, stale_after)
            # Per-series freshness against the catalog's cadence, relative to the market clock.
            freshness = series_freshness(list(market.provider.series_ids()), store.watermarks(source), market.today)
            store.refresh_analyst_copy(warehouse.analyst_path)
        publish_freshness(cache.r, freshness)
        stale = sorted(n for n in names if n in results and results[n].as_of < market.today)
        unpublished = sorted(n for n in names if n not in results)
        return MaterializeResult(metadata={
            "modules_published": count,
            "pulse_published": latest_pulse is not None,
            "products_published": MetadataValue.json(sorted(products)),
            "stale_modules": MetadataValue.json(stale),
            "never_computed": MetadataValue.json(unpublished),
            "stale_series": MetadataValue.json(sorted(s for s, f in freshness.items() if f["stale"])),
            "analyst_copy": MetadataValue.path(warehouse.analyst_path),
        })

    return publish
