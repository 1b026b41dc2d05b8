"""Which source serves which series, in which order: the publishers' own keyless feeds first, then the keyed
services that need a key the operator may not have set.

Every source module has `NAME`, `SERIES` (the catalog ids it serves), `DERIVED` ({series: how it is derived},
for the ones it computes rather than reads) and `fetch(client, ids, start, end)`; a keyed one also
`client_options(config)`. A series is tried along its chain until one source delivers it whole: one fetch never
mixes two publishers' numbers in a series.
"""
from __future__ import annotations

from types import ModuleType

from intel.catalog import CATALOG, SECTORS
from intel.providers.live import (
    bls,
    cboe,
    coinbase,
    ecb,
    frb,
    fred,
    freddiemac,
    goldprices,
    nyfed,
    sector_bars,
    stooq,
    treasury,
)
from intel.providers.live.client import LiveConfig

# keyless publishers, in the order tried
KEYLESS: tuple[ModuleType, ...] = (treasury, cboe, ecb, frb, nyfed, freddiemac, bls, coinbase, goldprices)
# keyed services: (module, the LiveConfig field holding its key, the setting that sets it)
KEYED: tuple[tuple[ModuleType, str, str], ...] = (
    (fred, "fred_api_key", "MI_FRED_API_KEY"),
    (sector_bars.tiingo, "tiingo_api_key", "MI_TIINGO_API_KEY"),
)
# Stooq refuses scripts since 2026 (an apikey behind a captcha, then a proof-of-work page): still tried last for
# the sector ETFs, its refusal a named failure, but it counts for nothing in the coverage.
REFUSING = (sector_bars.stooq,)
MODULES: dict[str, ModuleType] = {m.NAME: m for m in (*KEYLESS, *(k[0] for k in KEYED), *REFUSING)}


def served(module: ModuleType) -> set[str]:
    return set(module.SERIES) & set(CATALOG)


def chain(series_id: str, config: LiveConfig) -> list[str]:
    """The sources tried for `series_id` with this configuration, in order; empty: no source can serve it."""
    out = [m.NAME for m in KEYLESS if series_id in served(m)]
    out += [m.NAME for m, field, _ in KEYED if getattr(config, field) and series_id in served(m)]
    if out or series_id in SECTORS:
        out += [m.NAME for m in REFUSING if series_id in served(m)]
    return out


def counts(series_id: str, config: LiveConfig) -> bool:
    """Whether some source other than a refusing one would serve `series_id`."""
    return any(name not in {m.NAME for m in REFUSING} for name in chain(series_id, config))


def keys_needed(series_id: str, config: LiveConfig) -> list[str]:
    """The unset settings (MI_FRED_API_KEY, ...) each of which would bring a source for `series_id`."""
    return [setting for m, field, setting in KEYED if not getattr(config, field) and series_id in served(m)]


def derivation(series_id: str, source: str) -> str | None:
    """How `source` derives `series_id` (for provenance), None when it publishes the series as it is."""
    return getattr(MODULES.get(source), "DERIVED", {}).get(series_id)


__all__ = ["KEYED", "KEYLESS", "MODULES", "REFUSING", "chain", "counts", "derivation", "keys_needed", "served",
           "stooq"]
