"""What synthesis reads: the service's own published figures, and nothing else.

Ask, unified context and content all gather their evidence through a `PublishedReader` (the published copies in
Redis for the RQ jobs, a prefetched snapshot in the API) and cite it as `Figure`s: one number each, named by its
module, its dotted field path inside the module's `data`, its value exactly as published, and the dates behind it.
An agent can fetch `/api/v1/intelligence/{module}` and find the same value at the same path."""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol


class Unavailable(Exception):
    """An input synthesis wanted and could not use; the message says why (it becomes a caveat or a
    `sources_missing` entry)."""


class PublishedReader(Protocol):
    def module(self, name: str) -> dict | None:
        """The module's published payload (format `full`, without `_meta`), or None if not published."""

    def meta(self, name: str) -> dict | None:
        """Its publish meta: `as_of`, `data_as_of`, `published_at` (epoch s), `data_source`, `simulated`."""

    def product(self, name: str) -> dict | None:
        """A derived product's published payload (`regime`, `parallels`, `predictions_live`, ...), or None."""

    def ticker_module(self, name: str, ticker: str) -> dict:
        """A ticker module's payload for `ticker`, computed as the module route computes it; raises
        Unavailable with the reason (unknown ticker, insufficient data)."""

    def published(self) -> list[str]:
        """The names of the published (non-ticker) modules."""


@dataclass
class SnapshotReader:
    """A reader over payloads already in hand: the API's prefetch for unified context, and tests."""

    modules: Mapping[str, dict]
    metas: Mapping[str, dict] = field(default_factory=dict)
    products: Mapping[str, dict] = field(default_factory=dict)
    tickers: Mapping[tuple[str, str], dict] = field(default_factory=dict)

    def module(self, name: str) -> dict | None:
        return self.modules.get(name)

    def meta(self, name: str) -> dict | None:
        return self.metas.get(name)

    def product(self, name: str) -> dict | None:
        return self.products.get(name)

    def ticker_module(self, name: str, ticker: str) -> dict:
        try:
            return self.tickers[(name, ticker)]
        except KeyError:
            raise Unavailable(f"{name} for {ticker} was not computed") from None

    def published(self) -> list[str]:
        return sorted(self.modules)


@dataclass(frozen=True)
class Figure:
    module: str
    field: str  # dotted path inside the payload's `data` ("asset_classes.equities.key_figures.level")
    value: float | int
    as_of: str  # the payload's as_of (the market day it speaks for)
    observed_through: str | None = None  # the newest observation behind this figure, from its provenance
    ticker: str | None = None  # for a ticker module's figure

    def to_dict(self) -> dict:
        out = {"module": self.module, "field": self.field, "value": self.value, "as_of": self.as_of,
               "observed_through": self.observed_through}
        if self.ticker is not None:
            out["ticker"] = self.ticker
        return out


def value_at(data: dict, path: str):
    """The value at a dotted path inside `data` (list items by index), or None."""
    node = data
    for part in path.split("."):
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def numeric_leaves(data, prefix: str = "") -> Iterator[tuple[str, float | int]]:
    """Every finite number inside `data` with its dotted path, in the payload's own order (booleans are not
    figures)."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from numeric_leaves(value, f"{prefix}{key}.")
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from numeric_leaves(value, f"{prefix}{index}.")
    elif isinstance(data, int | float) and not isinstance(data, bool) and math.isfinite(data):
        yield prefix[:-1], data


def figure(module: str, payload: dict, path: str, ticker: str | None = None) -> Figure | None:
    """The figure at `path` of a module's published payload, or None where there is no number there."""
    value = value_at(payload.get("data") or {}, path)
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        return None
    return Figure(module, path, value, str(payload.get("as_of")), observed_through(payload, path), ticker)


def figures(module: str, payload: dict, limit: int | None = None, ticker: str | None = None) -> list[Figure]:
    """The payload's figures in its own order, at most `limit`."""
    out = []
    for path, _ in numeric_leaves(payload.get("data") or {}):
        if limit is not None and len(out) >= limit:
            break
        found = figure(module, payload, path, ticker)
        if found is not None:
            out.append(found)
    return out


def observed_through(payload: dict, path: str) -> str | None:
    """The newest observation date the payload's provenance names for the figure at `path`."""
    entry = (payload.get("provenance") or {}).get(path)
    if not isinstance(entry, dict):
        return None
    dates = [d for key in ("through", "observations") for d in _dates(entry.get(key))]
    return max(dates) if dates else None


def _dates(node) -> Iterator[str]:
    if isinstance(node, str) and len(node) == 10 and node[4] == "-":
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _dates(value)
    elif isinstance(node, list):
        for value in node:
            yield from _dates(value)
