"""Provenance: for every figure in a payload's `data`, the observations behind it and the operation.

Each entry has the `operation` and says how precisely the figure is attributed by which key it carries:
- `observations` (series -> the exact dates used) with `recompute`: a level, difference, ratio or percent change of
  named observations, made by `envelope.level`, `difference`, `ratio`, `pct_change` or `observed`. `recompute`
  says how: `kind` over the observations' values in the order listed (each series' dates in the order listed),
  times `scale` (1 when absent), rounded to `decimals`; an agent can recompute the figure from them.
- `through` (series -> the last date of the stretch used), or `observations` without `recompute` (the exact
  dates, for a figure no recompute kind expresses): rounded inside `about(frames, *series)` or
  `about_inputs(...)`; with `scope: module` when rounded outside any scope (every input the module read).
- neither: rests on no observation (a stated parameter of the method, or a count from the calendar and the
  clock), made in a scope that names no series.
Entries are kept short because they ride on every full response.
The operation comes from the helper that made the figure or, failing that, from the figure's key
(`percentile_1y` -> "percentile rank over 1 year"). Figures carry their source as a `Figure` (a float) from the
rounding to the envelope, where `attach` swaps each for a plain float and files its entry by path.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date

from intel.catalog import REVISED

KINDS = ("level", "difference", "ratio", "pct_change")


@dataclass(frozen=True)
class Input:
    """One series behind a figure: the exact observations used (`dates`), or every observation up to
    `through` when the figure rests on a stretch of its history."""

    series: str
    dates: tuple[date, ...] = ()
    through: date | None = None


@dataclass(frozen=True)
class Source:
    inputs: tuple[Input, ...]
    operation: str | None = None
    attribution: str = "series"
    # level: a * scale; difference: (a - b) * scale; ratio: a / b * scale; pct_change: (a / b - 1) * scale
    kind: str | None = None
    scale: float = 1.0
    decimals: int | None = None

    def as_json(self, key: str) -> dict:
        """The entry filed under the figure's path, kept short (it rides on every full response): the
        operation; exact figures' `observations` (series -> dates used) and `recompute`; otherwise `through`
        (series -> the last date of the stretch used), with `scope: module` for a number outside any scope;
        neither for a figure that rests on no observation."""
        out = {"operation": self.operation or operation_for(key)}
        dated = {i.series: [d.isoformat() for d in i.dates] for i in self.inputs if i.dates}
        spans = {i.series: i.through.isoformat() for i in self.inputs if not i.dates and i.through}
        if dated:
            out["observations"] = dated
        if spans:
            out["through"] = spans
        if self.kind:
            out["recompute"] = {"kind": self.kind, "decimals": self.decimals}
            if self.scale != 1.0:
                out["recompute"]["scale"] = int(self.scale) if self.scale == int(self.scale) else self.scale
        if self.attribution == "module":
            out["scope"] = "module"
        if any(i.series in REVISED for i in self.inputs):
            out["vintage"] = "latest"  # revised after its first release: the latest revision held, not the first
        return out


class Figure(float):
    """A rounded figure that remembers its source until the envelope files it."""

    __slots__ = ("source",)

    def __new__(cls, value: float, source: Source) -> Figure:
        out = super().__new__(cls, value)
        out.source = source
        return out


class Count(int):
    """A whole number (a count of observations, of days) that remembers its source, like Figure (an int
    subclass cannot have slots, so it keeps the source in its __dict__)."""

    def __new__(cls, value: int, source: Source) -> Count:
        out = super().__new__(cls, value)
        out.source = source
        return out


_scope: ContextVar[Source | None] = ContextVar("provenance_scope", default=None)
# series id -> last observation date of each essential input met during one module's compute
_essential: ContextVar[dict[str, date] | None] = ContextVar("essential_inputs", default=None)


@contextmanager
def computing() -> Iterator[None]:
    """One module's compute: the essential inputs it names are gathered afresh (see `essential`)."""
    token = _essential.set({})
    try:
        yield
    finally:
        _essential.reset(token)


def note_essential(series_id: str, last: date | None) -> None:
    """Record an essential input (by `require`, or a ticker's bars) and its last observation."""
    found = _essential.get()
    if found is not None and last is not None:
        found[series_id] = last


def essential() -> dict[str, date]:
    return dict(_essential.get() or {})


def through(frames, series_ids: Iterable[str]) -> tuple[Input, ...]:
    """Each present series as an input through its last observation."""
    out = []
    for series_id in series_ids:
        last = frames.last_date(series_id)
        if last is not None:
            out.append(Input(series_id, through=last))
    return tuple(out)


@contextmanager
def about(frames, *series_ids: str, operation: str | None = None) -> Iterator[None]:
    """Figures rounded inside rest on these series (through their last observation)."""
    with about_inputs(through(frames, series_ids), operation):
        yield


@contextmanager
def about_inputs(inputs: tuple[Input, ...], operation: str | None = None) -> Iterator[None]:
    """`about` for inputs already resolved (a ticker's bars, which are not in the frames)."""
    token = _scope.set(Source(inputs, operation))
    try:
        yield
    finally:
        _scope.reset(token)


def tag(value: float, operation: str | None = None):
    """`value` (already rounded) as a Figure of the current scope, or as it is outside one."""
    scope = _scope.get()
    if scope is None:
        return value
    kind = Count if isinstance(value, int) else Figure
    return kind(value, Source(scope.inputs, operation or scope.operation))


def observed(value: float, inputs: Iterable[tuple[str, date]], kind: str, operation: str, decimals: int,
             scale: float = 1.0) -> Figure:
    """A figure made from named observations: `kind` of the inputs' values, times `scale`, rounded."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind}")
    grouped: dict[str, list[date]] = {}
    for series_id, day in inputs:
        grouped.setdefault(series_id, []).append(day)
    source = Source(tuple(Input(s, tuple(d)) for s, d in grouped.items()), operation, "observation", kind,
                    scale, decimals)
    return Figure(value, source)


# ---- filing: Figures out, plain floats and a path -> entry map in ----

def attach(data: dict, fallback: tuple[Input, ...]) -> tuple[dict, dict]:
    """(data with plain floats, provenance by dotted path). A number without a source rests on `fallback`
    (every input the payload declares), attributed to the module."""
    provenance: dict[str, dict] = {}
    module_source = Source(fallback, attribution="module")
    return _walk(data, "", provenance, module_source), provenance


def mark_first_release(entries: dict[str, dict], first_release: frozenset[str]) -> None:
    """`vintage: first_release` on each entry whose revised inputs all carry their values as first published."""
    for entry in entries.values():
        if entry.get("vintage") == "latest":
            revised = {*entry.get("observations", {}), *entry.get("through", {})} & REVISED
            if revised and revised <= first_release:
                entry["vintage"] = "first_release"


def plain(value):
    """`value` with every Figure made a plain float (signals and other blocks beside `data`)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Count):
        return int(value)
    return float(value) if isinstance(value, Figure) else value


def _walk(value, path: str, out: dict, fallback: Source):
    if isinstance(value, dict):
        return {k: _walk(v, f"{path}.{k}" if path else str(k), out, fallback) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_walk(v, f"{path}.{i}", out, fallback) for i, v in enumerate(value)]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    key = _key_of(path)
    if isinstance(value, (Figure, Count)):
        out[path] = value.source.as_json(key)
        return int(value) if isinstance(value, Count) else float(value)
    out[path] = fallback.as_json(key)
    return value


def _key_of(path: str) -> str:
    """The last named part of a path (`alerts.0.z` -> `z`; `sectors.XLK.2` -> `XLK`)."""
    parts = [p for p in path.split(".") if not p.isdigit()]
    return parts[-1] if parts else path


# ---- operations named from a figure's key, for figures whose helper named none ----

HORIZONS = {"1d": "1 day", "5d": "5 days", "1w": "1 week", "2w": "2 weeks", "1m": "1 month", "3m": "3 months",
            "6m": "6 months", "9m": "9 months", "12m": "12 months", "1y": "1 year", "2y": "2 years",
            "3y": "3 years", "5y": "5 years", "10y": "10 years", "20y": "20 years", "ytd": "the year to date",
            "12_1": "12 months skipping the latest month"}
_H = r"(?P<h>\d+[dwmy]|ytd|12_1)"
_UNITS = {"pct": "percent", "bp": "basis points", "pts": "points", "x": "times"}


def _horizon(h: str | None) -> str:
    if not h:
        return ""
    if h in HORIZONS:
        return f" over {HORIZONS[h]}"
    return f" over {h[:-1]} observations" if h.endswith("d") else f" over {h}"


RULES: tuple[tuple[re.Pattern, callable], ...] = tuple((re.compile(p), f) for p, f in (
    (r"^(level|close|last|value|yield_pct|oas_pct|rate_pct|price)$", lambda m: "latest value"),
    (rf"^change_{_H}(_(?P<u>pct|bp|pts))?$", lambda m: f"change{_horizon(m['h'])}" + _unit(m["u"])),
    (rf"^(return|momentum)_{_H}_pct$", lambda m: f"return{_horizon(m['h'])}, percent"),
    (rf"^percentile(_{_H})?$", lambda m: f"percentile rank{_horizon(m['h'])}"),
    (rf"^(max_abs_)?zscore(_{_H})?$", lambda m: f"z-score{_horizon(m['h'])}"),
    (rf"^realized_vol(_{_H})?_pct$", lambda m: f"annualized realized volatility{_horizon(m['h'])}, percent"),
    (rf"^correlation(_{_H})?$", lambda m: f"correlation{_horizon(m['h'])}"),
    (r"^sma_?(?P<n>\d+)$", lambda m: f"{m['n']}-observation simple moving average"),
    (r"^distance_to_sma(?P<n>\d+)_pct$", lambda m: f"percent distance from the {m['n']}-observation average"),
    (rf"^(?P<w>mean|median|high|low|max|min)_{_H}$", lambda m: f"{m['w']}{_horizon(m['h'])}"),
    (r"^yoy_pct$", lambda m: "year-over-year change, percent"),
    (r"^(observations|n|count|common_days|\w+_count|observations_used)$", lambda m: "count of observations"),
    (r"^history_years(_used)?$", lambda m: "years of history used"),
    (r"^(score|\w+_score)$", lambda m: "score (see methodology)"),
    (r"^(probability|\w+_probability)(_pct)?$", lambda m: "probability (see methodology)"),
))


def _unit(u: str | None) -> str:
    return f", {_UNITS[u]}" if u else ""


def operation_for(key: str) -> str:
    for pattern, words in RULES:
        match = pattern.match(key)
        if match:
            return words(match)
    return "derived from the inputs (see methodology)"
