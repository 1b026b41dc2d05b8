"""The module registry: one entry per implemented module, read by assets, API, catalog and pricing. A module
declares its price tier (S standard, P proprietary); what a tier costs is in the price list (charging/prices.py)."""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal


@dataclass(frozen=True)
class Module:
    name: str
    # overview, equities, rates_credit, macro, volatility, fx, commodities, crypto, cross_asset, regime, ticker
    category: str
    tier: Literal["S", "P"]
    inputs: tuple[str, ...]  # series ids (catalog ids) the module reads
    description: str
    # (frames) -> payload for ordinary modules; (frames, bars, ticker) -> payload for ticker modules
    compute: Callable
    takes_ticker: bool = False
    lookback_days: int = 3700  # calendar days of history the module needs before `now`


REGISTRY: dict[str, Module] = {}


def union_inputs(chosen) -> tuple[list[str], int]:
    """What reading `chosen` modules' inputs at once takes: every series any of them reads, over the longest
    lookback (`Frames.only` then cuts each module's own)."""
    return (sorted({sid for module in chosen for sid in module.inputs}),
            max((module.lookback_days for module in chosen), default=0))


def register(module: Module) -> Module:
    if module.name in REGISTRY:
        raise ValueError(f"module {module.name} registered twice")
    module = replace(module, compute=_computing(module.compute))
    REGISTRY[module.name] = module
    return module


def _computing(compute: Callable) -> Callable:
    """Each call gathers its own essential inputs (the payload's `data_as_of`), whatever ran before it."""
    from intel.provenance import computing

    @functools.wraps(compute)
    def run(*args, **kwargs):
        with computing():
            return compute(*args, **kwargs)

    return run


def modules() -> dict[str, Module]:
    """All implemented modules (importing intel.modules registers them)."""
    import intel.modules  # noqa: F401  (registration side effect)

    return REGISTRY
