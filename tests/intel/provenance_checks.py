"""Checks of a payload's provenance against real history: shared by the replay test and bench/provenance.py.

- `figure_paths`: every number in `data`, by the dotted path `provenance` files it under.
- `recompute_errors`: figures attributed to named observations, recomputed from the history CSVs themselves
  (not through the provider) and compared with the published value.
- `undeclared_dependencies`: figures that move when a series they do not name is perturbed (each of the
  module's inputs in turn gets deterministic noise on every value); a provenance that leaves out a series the
  figure rests on is caught here.
"""
from __future__ import annotations

import math
import re
from dataclasses import replace
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path

import numpy as np
import polars as pl

from intel.envelope import InsufficientData
from intel.formats import flatten
from intel.frames import Frames
from intel.providers.replay import ReplayProvider, read_series_csv
from intel.registry import Module

# as tests/history.py has it; not imported, so bench/provenance.py can load this file alone
HISTORY = (Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "history").resolve()
TICKER = "XLK"


@lru_cache(maxsize=1)
def provider() -> ReplayProvider:
    return ReplayProvider(HISTORY)


def replay_inputs(module: Module, now: date) -> tuple[Frames, pl.DataFrame | None]:
    """The module's frames (and a ticker module's bars) as a replay at `now` would hand them out."""
    start = now - timedelta(days=module.lookback_days)
    frames = Frames.from_long(provider().observations(module.inputs, start, now), now, "replay")
    bars = None
    if module.takes_ticker:
        bars = provider().bars(TICKER, start, now)
        adjustment = provider().price_adjustment(TICKER)
        frames = replace(frames, adjustments={TICKER: adjustment} if adjustment else {})
    return frames, bars


def expanded(provenance: dict) -> dict:
    """The compact entries spelled out, for reading in tests: `inputs` as a list of {series, dates} (exact
    observations) or {series, through}, `attribution` (observation, series, module or none) and `recompute`
    with its scale (1 when the entry leaves it out)."""
    out = {}
    for path, entry in provenance.items():
        inputs = [{"series": s, "dates": d} for s, d in entry.get("observations", {}).items()]
        inputs += [{"series": s, "through": d} for s, d in entry.get("through", {}).items()]
        if "recompute" in entry:
            attribution = "observation"
        elif inputs:
            attribution = "module" if entry.get("scope") == "module" else "series"
        else:
            attribution = "none"
        out[path] = {"inputs": inputs, "operation": entry["operation"], "attribution": attribution}
        if "recompute" in entry:
            out[path]["recompute"] = {"scale": 1, **entry["recompute"]}
    return out


def compute(module: Module, frames: Frames, bars: pl.DataFrame | None) -> dict | None:
    try:
        return module.compute(frames, bars, TICKER) if module.takes_ticker else module.compute(frames)
    except InsufficientData:
        return None


def figure_paths(payload: dict) -> dict[str, float]:
    return {k: v for k, v in flatten(payload["data"]).items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}


@lru_cache(maxsize=128)
def history(series_id: str) -> dict[date, float]:
    frame = read_series_csv(HISTORY / f"{series_id}.csv")
    return dict(zip(frame["date"].to_list(), frame["value"].to_list(), strict=True))


def recompute_errors(payload: dict) -> list[str]:
    """Observation-attributed figures whose recomputation from the CSVs differs from the published value."""
    errors = []
    figures = figure_paths(payload)
    for path, entry in expanded(payload["provenance"]).items():
        spec = entry.get("recompute")
        if not spec:
            continue
        values = []
        for item in entry["inputs"]:
            for day in item["dates"]:
                values.append(history(item["series"]).get(date.fromisoformat(day)))
        if any(v is None for v in values):
            errors.append(f"{path}: an observation named in {entry['inputs']} is not in the history files")
            continue
        value = {"level": lambda: values[0], "difference": lambda: values[0] - values[-1],
                 "ratio": lambda: values[0] / values[-1],
                 "pct_change": lambda: values[0] / values[-1] - 1}[spec["kind"]]() * spec["scale"]
        expected = round(value, spec["decimals"])
        if not math.isclose(expected, figures[path], abs_tol=10 ** -spec["decimals"] / 2 + 1e-9):
            errors.append(f"{path}: published {figures[path]}, recomputed {expected} from {entry['inputs']}")
    return errors


@lru_cache(maxsize=128)
def source_decimals(series_id: str) -> int:
    """The most decimals any value of the series is written with in its history file."""
    text = (HISTORY / f"{series_id}.csv").read_text().splitlines()[1:]
    cells = [line.rsplit(",", 1)[-1].strip() for line in text]
    return max((len(c.split(".", 1)[1]) for c in cells if "." in c), default=0)


def precision_errors(payload: dict) -> list[str]:
    """Levels published with more decimals than their source writes (a price in cents shown to 4 places)."""
    errors = []
    figures = figure_paths(payload)
    for path, entry in expanded(payload["provenance"]).items():
        spec = entry.get("recompute")
        if not spec or spec["kind"] != "level" or spec["scale"] != 1.0:
            continue
        series = entry["inputs"][0]["series"]
        allowed = PRICE_DECIMALS if series in PRICES else source_decimals(series)
        if _decimals(figures[path]) > allowed:
            errors.append(f"{path}: {figures[path]} has more decimals than {series} ({allowed})")
    return errors


# prices quoted in cents, whatever decimals an adjusted history file carries
PRICES = frozenset({"XLB", "XLC", "XLE", "XLF", "XLI", "XLK", "XLP", "XLRE", "XLU", "XLV", "XLY", "SP500",
                    "NASDAQCOM", "CBBTCUSD", "CBETHUSD", "DCOILWTICO", "DCOILBRENTEU"})
PRICE_DECIMALS = 2


def _decimals(value: float) -> int:
    text = repr(float(value))
    return 0 if "e" in text else len(text.split(".", 1)[1].rstrip("0"))


SIGN_ON_ZERO = re.compile(
    r"\b(positive|negative|up|down|wider|tighter|higher|lower|rising|falling|rose|fell|gained|lost|steeper|flatter)"
    r"\b( at| by| of)? [+-]?0(\.0+)?(?![\d.])|(?<![\w.])[+-]0(\.0+)?(?![\d.])"
    # a distance of zero "above its low" (not a share of zero "above their average")
    r"|(?<![\w.])0\.0+ ?(%|bp|pp|pts|points)? (above|below|beyond) (its|the) ", re.IGNORECASE)


def sign_word_errors(payload: dict) -> list[str]:
    """A direction or sign put on a zero ("positive at 0.0 bp", "up 0.0%", "+0.0", "0.0 pp above") in the
    summary or a reason."""
    texts = [payload.get("summary", "")] + [s.get("reason", "") for s in payload.get("signals", [])]
    return [f"{m.group(0)!r} in {t!r}" for t in texts for m in SIGN_ON_ZERO.finditer(t)]


def dates_named(payload: dict) -> list[date]:
    out = []
    for entry in expanded(payload["provenance"]).values():
        for item in entry["inputs"]:
            out += [date.fromisoformat(d) for d in item.get("dates", [])]
            if item.get("through"):
                out.append(date.fromisoformat(item["through"]))
    return out


def _noisy(frame: pl.DataFrame) -> pl.DataFrame:
    """Every value moved by a different few percent (and a small offset, so zeros move too)."""
    i = np.arange(frame.height)
    noise = 1 + 0.07 * np.sin(i * 12.9898 + 1.3)
    return frame.with_columns(pl.Series("value", frame["value"].to_numpy() * noise + 0.013 * np.cos(i * 7.1)))


def undeclared_dependencies(module: Module, frames: Frames, bars: pl.DataFrame | None, payload: dict) -> list[str]:
    """`path <- series` for each figure that moves when a series its provenance does not name is perturbed."""
    named = {path: {i["series"] for i in entry["inputs"]} for path, entry in expanded(payload["provenance"]).items()}
    base = figure_paths(payload)
    found = []
    candidates = [s for s in module.inputs if frames.get(s) is not None] + ([TICKER] if bars is not None else [])
    for series_id in candidates:
        if series_id == TICKER and bars is not None:
            moved_bars = bars.with_columns(pl.Series("close", _noisy(
                bars.select("date", pl.col("close").alias("value")))["value"]))
            moved = compute(module, frames, moved_bars)
        else:
            series = {**frames.series, series_id: _noisy(frames.series[series_id])}
            moved = compute(module, Frames(now=frames.now, series=series, data_source=frames.data_source,
                                           adjustments=frames.adjustments), bars)
        if moved is None:
            continue
        for path, value in figure_paths(moved).items():
            if path in base and series_id not in named.get(path, ()) and not _same(value, base[path]):
                found.append(f"{path} <- {series_id}")
    return found


def _same(a: float, b: float) -> bool:
    return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def attribution_counts(payload: dict) -> dict[str, int]:
    counts = {"observation": 0, "series": 0, "module": 0, "none": 0}
    for entry in expanded(payload["provenance"]).values():
        counts[entry["attribution"]] += 1
    return counts
