"""One asset per non-ticker module of the registry (ticker modules are computed on demand by the API).

A module that fails must not hold back the other seventy: each asset records its outcome in an asset check
(`computed`) instead of failing the step, so the run goes on to publish, and the failure shows red in the UI
with its error. `InsufficientData` is a warning; anything else is an error."""

import functools
import logging
import traceback

import orjson
import redis
from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetsDefinition,
    MaterializeResult,
    MetadataValue,
    asset,
)

from assets.ingest import observations
from assets.resources import MarketResource, WarehouseResource
from charging.prices import module_price
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.providers.base import FirstDates
from intel.registry import Module, modules, union_inputs
from warehouse import keys

CHECK = "computed"
log = logging.getLogger(__name__)


def scheduled_modules() -> list[Module]:
    """Registry modules computed by the pipeline (everything but the ticker modules)."""
    return [m for m in modules().values() if not m.takes_ticker]


def build_module_asset(module: Module) -> AssetsDefinition:
    @asset(
        name=module.name,
        group_name=module.category,
        deps=[observations],
        description=module.description,
        tags={"tier": module.tier},
        kinds={"polars", "duckdb"},
        check_specs=[AssetCheckSpec(CHECK, asset=module.name, description="the module computed a payload")],
        metadata={"inputs": MetadataValue.json(list(module.inputs)), "price_sats": module_price(module)},
    )
    def _module(context: AssetExecutionContext, market: MarketResource,
                warehouse: WarehouseResource) -> MaterializeResult:
        source = market.provider.name
        with warehouse.open() as store:
            frames = inputs_of(module, context.run_id, store, market)
            try:
                payload = module.compute(frames)
            except InsufficientData as exc:
                context.log.warning(f"{module.name}: insufficient data: {exc}")
                _note_uncomputed(market, module.name, {"as_of": market.today.isoformat(), "reason": str(exc),
                                                       "series": _first_dates(store, market.provider, exc.series)})
                return _outcome(module, "insufficient_data", str(exc), AssetCheckSeverity.WARN)
            except Exception as exc:  # a bug in one module: record it, keep the run going
                context.log.error(f"{module.name} failed:\n{traceback.format_exc()}")
                return _outcome(module, "error", f"{type(exc).__name__}: {exc}", AssetCheckSeverity.ERROR)
            store.write_module_result(module.name, market.today, payload, source, market.now)
        _note_uncomputed(market, module.name, None)
        missing = [s for s in module.inputs if frames.get(s) is None]
        return MaterializeResult(
            metadata={"status": "ok", "as_of": str(payload.get("as_of", market.today)),
                      "missing_inputs": MetadataValue.json(missing)},
            check_results=[AssetCheckResult(check_name=CHECK, passed=True)],
        )

    return _module


_RUN_INPUTS: dict[str, Frames] = {}  # run id -> every scheduled module's inputs, read by the run's first module


def inputs_of(module: Module, run_id: str, store, market: MarketResource) -> Frames:
    """The module's inputs as of the run's clock. Every scheduled module's are read once per run and cut per module
    (`Frames.only` gives what reading one module's inputs alone gives): one warehouse query a run instead of one a
    module. A module outside the registry's schedule (a test's, a plugin's) reads its own."""
    shared, lookback = _scheduled_inputs()
    if not set(module.inputs) <= set(shared) or module.lookback_days > lookback:
        return store.frames(module.inputs, market.today, module.lookback_days, market.provider.name,
                            now_ts=market.now)
    frames = _RUN_INPUTS.get(run_id)
    if frames is None:
        frames = store.frames(shared, market.today, lookback, market.provider.name, now_ts=market.now)
        _RUN_INPUTS.clear()  # a run's steps follow each other in one process: only the current run's is kept
        _RUN_INPUTS[run_id] = frames
    return frames.only(module.inputs, module.lookback_days)


@functools.cache
def _scheduled_inputs() -> tuple[list[str], int]:
    return union_inputs(scheduled_modules())  # the registry is fixed once imported


def _first_dates(store, provider, series: tuple[str, ...]) -> dict[str, str | None]:
    """Where each series' history begins: its first stored date, else the provider's first (a replay before the
    series' file begins: that date says only that there is history later, not what it holds), else None."""
    first = {**(provider.first_dates(series) if isinstance(provider, FirstDates) else {}),
             **store.first_dates(series, provider.name)}
    return {sid: first[sid].isoformat() if sid in first else None for sid in series}


def _note_uncomputed(market: MarketResource, name: str, why: dict | None) -> None:
    """Tell the API why a module has no answer (its inputs' history starts later), or that it has one again. The
    status is rebuildable: a Redis hiccup is logged, it does not fail the module."""
    try:
        client = market.status_client()
        if why is None:
            client.hdel(keys.STATUS_UNCOMPUTED, name)
        else:
            client.hset(keys.STATUS_UNCOMPUTED, name, orjson.dumps(why))
    except redis.RedisError as exc:
        log.warning("could not record %s's outcome for the API: %s", name, exc)


def _outcome(module: Module, status: str, reason: str, severity: AssetCheckSeverity) -> MaterializeResult:
    return MaterializeResult(
        metadata={"status": status, "reason": reason},
        check_results=[AssetCheckResult(check_name=CHECK, passed=False, severity=severity,
                                        metadata={"status": status, "reason": reason})],
    )


def module_assets() -> list[AssetsDefinition]:
    return [build_module_asset(m) for m in scheduled_modules()]
