"""The payload envelope every module returns (format `full`), built here so all modules agree, and the helpers
that make a payload's figures with their provenance: `rnd` and `count` (figures of the current scope),
`constant` (a figure resting on no observation), `level`, `difference`, `ratio`, `pct_change`, `change_obs`
and `observed_level` (figures of named observations), `retag` and `exact_or` (for figures another helper
rounded), and `last_obs`, `nth_obs`, `obs_on_or_before` and `obs_days_before`, which name observations."""
from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta

import numpy as np
import polars as pl

from intel import catalog, indicators, provenance
from intel.frames import Frames

DIRECTIONS = ("bullish", "bearish", "neutral")
URGENCIES = ("low", "medium", "high", "critical")
# How old the last observation may be before a series counts as stale, by its publishing cadence.
STALE_AFTER = {"daily": 5, "weekly": 14, "monthly": 70, "quarterly": 200}  # business days for daily
Obs = tuple[str, date, float]  # (series, date, value): one named observation


class InsufficientData(Exception):
    """The module's essential inputs are missing (`series`, when known): the API answers 503 saying which, since
    when each has history, and what stands in."""

    def __init__(self, message: str, series: Iterable[str] = ()):
        super().__init__(message)
        self.series = tuple(series)


def rnd(value, digits: int = 2, op: str | None = None):
    """Round for output; None for anything missing or non-finite (never NaN/inf in a payload). Inside
    `provenance.about(...)` the result carries that scope's series (and `op`, the operation, when given)."""
    if value is None:
        return None
    value = float(value)
    if not math.isfinite(value):
        return None
    return provenance.tag(_rounded(value, digits), op)


def count(n, op: str | None = None):
    """A whole number for output (a count of observations, days): stays an int, traced like `rnd`'s figures."""
    return None if n is None else provenance.tag(int(n), op)


def constant(value, op: str, digits: int = 6):
    """A stated parameter of the method, or a number from the calendar and the clock: it rests on no
    observation, so its provenance names no input (rather than every input the module read). A whole number
    stays an int."""
    with provenance.about_inputs((), operation=op):
        return count(value) if isinstance(value, int) else rnd(value, digits)


def level(frames: Frames, series_id: str, digits: int = 2, scale: float = 1.0, op: str = "level"):
    """The series' last observation (times `scale`), rounded, attributed to that observation."""
    frame = frames.get(series_id)
    if frame is None:
        return None
    day, value = frame["date"][-1], float(frame["value"][-1]) * scale
    return provenance.observed(_rounded(value, digits), [(series_id, day)], "level", op, digits, scale)


def difference(a: tuple[str, date, float], b: tuple[str, date, float], digits: int = 1, scale: float = 100.0,
               op: str | None = None):
    """(a - b) * scale from two named observations (series, date, value): a spread in bp by default; None
    when either is missing."""
    if a is None or b is None:
        return None
    value = (a[2] - b[2]) * scale
    words = op or f"{a[0]} - {b[0]}" + (" in bp" if scale == 100.0 else "")
    return provenance.observed(_rounded(value, digits), [(a[0], a[1]), (b[0], b[1])], "difference", words, digits,
                               scale)


def ratio(a: tuple[str, date, float], b: tuple[str, date, float], digits: int = 2, scale: float = 1.0,
          op: str | None = None):
    """a / b * scale from two named observations (series, date, value); None when either is missing."""
    if a is None or b is None or b[2] == 0:
        return None
    value = a[2] / b[2] * scale
    return provenance.observed(_rounded(value, digits), [(a[0], a[1]), (b[0], b[1])], "ratio", op or f"{a[0]} / {b[0]}",
                               digits, scale)


def pct_change(a: tuple[str, date, float], b: tuple[str, date, float], digits: int = 2, op: str | None = None):
    """(a / b - 1) * 100 from two named observations (series, date, value): the later one first; None when
    either is missing."""
    if a is None or b is None or b[2] == 0:
        return None
    value = (a[2] / b[2] - 1) * 100
    words = op or f"percent change of {a[0]} from {b[1].isoformat()} to {a[1].isoformat()}"
    return provenance.observed(_rounded(value, digits), [(a[0], a[1]), (b[0], b[1])], "pct_change", words, digits,
                               100.0)


def change_obs(a: Obs | None, b: Obs | None, kind: str, digits: int, op: str, scale: float = 1.0):
    """A change between two named observations, as indicators.change_since computes it: `pct` the percent change,
    `bp` the difference in basis points, `diff` the difference times `scale`; None without both."""
    if a is None or b is None:
        return None
    if kind == "pct":
        return pct_change(a, b, digits, op=op)
    return difference(a, b, digits, scale=100.0 if kind == "bp" else scale, op=op)


def retag(frames: Frames, value, series_ids, op: str | None = None):
    """A figure already rounded by a helper that files none (the regime classifier, a ranking) filed under
    these series, unchanged in value; None stays None."""
    if value is None or isinstance(value, bool):
        return value
    with provenance.about(frames, *series_ids):
        return provenance.tag(float(value), op)


def exact_or(figure, value, fallback):
    """The figure made from named observations when it reproduces the published value, else `fallback`
    (the same value resting on its series): a shared helper's formula may differ in the last bit."""
    return figure if figure is not None and value is not None and float(figure) == float(value) else fallback


def _rounded(value: float, digits: int) -> float:
    out = round(value, digits)
    return 0.0 if out == 0 else out  # no "-0.0" in text


def observed_level(obs: Obs | None, digits: int = 2, op: str = "level"):
    """A named observation's value, rounded, attributed to it: for one other than the series' last (a high, a
    close on the last date two series share), which `level` does not take. None without the observation."""
    if obs is None:
        return None
    return provenance.observed(_rounded(obs[2], digits), [(obs[0], obs[1])], "level", op, digits)


# ---- named observations: the inputs of difference, ratio, pct_change and observed_level ----
# `source` is the module's frames (the series is looked up) or a frame of the series itself (a window of its
# history, a ticker's bars): helpers shared by both kinds of caller take either.

def last_obs(source: Frames | pl.DataFrame, series_id: str) -> Obs | None:
    """(series, date, value) of the series' last observation: an input for `difference` and `ratio`."""
    return nth_obs(source, series_id, -1)


def nth_obs(source: Frames | pl.DataFrame, series_id: str, n: int) -> Obs | None:
    """(series, date, value) of observation n (-1 the last, -2 the one before, 0 the first), None when there is
    none."""
    frame = _frame_of(source, series_id)
    if frame is None or not -frame.height <= n < frame.height:
        return None
    return series_id, frame["date"][n], float(frame["value"][n])


def obs_on_or_before(source: Frames | pl.DataFrame, series_id: str, day: date) -> Obs | None:
    """The series' last observation dated on or before `day`, None when its history starts later."""
    frame = _frame_of(source, series_id)
    found = None if frame is None else indicators.value_on_or_before(frame, day)
    return None if found is None else (series_id, found[0], found[1])


def obs_days_before(source: Frames | pl.DataFrame, series_id: str, days: int) -> Obs | None:
    """The observation on or before `days` calendar days before the series' last one (the base
    indicators.change_since takes), None when the history does not reach back that far."""
    frame = _frame_of(source, series_id)
    if frame is None:
        return None
    return obs_on_or_before(frame, series_id, frame["date"][-1] - timedelta(days=days))


def _frame_of(source: Frames | pl.DataFrame, series_id: str) -> pl.DataFrame | None:
    return source if isinstance(source, pl.DataFrame) else source.get(series_id)


def cadence_of(frame: pl.DataFrame) -> str:
    """Publishing cadence inferred from the median gap between the last observations."""
    dates = frame["date"].tail(25).to_numpy().astype("datetime64[D]")
    if len(dates) < 2:
        return "daily"
    gap = float(statistics.median(np.diff(dates).astype(np.int64).tolist()))  # np.median costs 10x on 24 gaps
    if gap <= 4:
        return "daily"
    if gap <= 10:
        return "weekly"
    if gap <= 45:
        return "monthly"
    return "quarterly"


def is_stale(last: date, now: date, cadence: str) -> bool:
    if cadence == "daily":
        return int(np.busday_count(last, now)) > STALE_AFTER["daily"]
    return (now - last).days > STALE_AFTER[cadence]


def series_status(frames: Frames, series_id: str) -> dict | None:
    frame = frames.get(series_id)
    if frame is None:
        return None
    last = frame["date"][-1]
    cadence = cadence_of(frame)
    entry = catalog.get(series_id)
    if entry is not None and cadence != "daily":
        # weekly and slower series are published weeks after their date (Case-Shiller: about 88 days), so
        # age is judged against the series' own release lag rather than one limit per cadence
        stale = (frames.now - last).days > entry.max_age_days
    else:
        stale = is_stale(last, frames.now, cadence)
    return {"id": series_id, "last_observation": last.isoformat(), "observations_used": frame.height,
            "stale": stale, "cadence": cadence}


def data_sources(frames: Frames, series_ids: Iterable[str], used: dict[str, int] | None = None) -> dict:
    """Attribution block: each series' last observation, how many observations fed the numbers,
    whether it is stale, and which inputs were absent."""
    series, missing = [], []
    for series_id in series_ids:
        status = series_status(frames, series_id)
        if status is None:
            missing.append(series_id)
            continue
        if used and series_id in used:
            status["observations_used"] = int(used[series_id])
        series.append(status)
    return {"provider": frames.data_source, "series": series, "missing": missing}


def bars_status(frames: Frames, bars: pl.DataFrame, ticker: str) -> dict:
    """The data_sources entry of a ticker's daily bars (a ticker module's own input)."""
    last = bars["date"][-1]
    return {"id": ticker, "last_observation": last.isoformat(), "observations_used": bars.height,
            "stale": is_stale(last, frames.now, "daily"), "cadence": "daily"}


def ticker_sources(frames: Frames, bars: pl.DataFrame, ticker: str, inputs: Iterable[str] = ()) -> dict:
    """Attribution for a ticker module: the ticker's bars first, then every declared series input."""
    sources = data_sources(frames, inputs)
    sources["series"].insert(0, bars_status(frames, bars, ticker))
    return sources


def stale_ids(sources: dict) -> list[str]:
    return [s["id"] for s in sources["series"] if s["stale"]]


def signal(name: str, direction: str, confidence: float, urgency: str, reason: str) -> dict:
    if direction not in DIRECTIONS or urgency not in URGENCIES:
        raise ValueError(f"bad signal {name}: {direction}/{urgency}")
    return {"name": name, "direction": direction, "confidence": rnd(min(1.0, max(0.0, confidence)), 2),
            "urgency": urgency, "reason": reason}


def related(*pairs: tuple[str, str]) -> list[dict]:
    """Suggested next modules, only those implemented: a suggestion must not lead to a 404."""
    from intel.registry import REGISTRY  # filled once intel.modules is imported, before any compute runs

    return [{"name": name, "reason": reason} for name, reason in pairs if name in REGISTRY]


def degrade(confidence: float, sources: dict, essential: Iterable[str] = ()) -> float:
    """Lower a confidence for each stale or missing input (essential ones cost more): never invent."""
    essential = set(essential)
    core = minor = 0.0
    for series_id in sources["missing"]:
        core, minor = (core + 0.25, minor) if series_id in essential else (core, minor + 0.05)
    for series_id in stale_ids(sources):
        core, minor = (core + 0.3, minor) if series_id in essential else (core, minor + 0.1)
    # supporting inputs together cost at most 0.3: many of them stale must not outweigh a fresh lead
    return max(0.05, confidence * (1.0 - min(core + min(minor, 0.3), 0.9)))


def build(module: str, frames: Frames, *, data: dict, signals: list[dict], summary: str, sources: dict,
          related_modules: list[dict], methodology: str | None = None, unavailable: dict | None = None) -> dict:
    """The `full` envelope. `unavailable` maps a figure to the reason it could not be computed."""
    if unavailable:
        data = {**data, "unavailable": unavailable}
    data, provenance_by_path = provenance.attach(data, declared_inputs(sources))
    if frames.first_release:
        provenance.mark_first_release(provenance_by_path, frames.first_release)
    payload = {"module": module, **dates(frames, sources), "data": data, "signals": provenance.plain(signals),
               "summary": summary, "data_sources": sources, "related_modules": related_modules,
               "full_data": True, "provenance": provenance_by_path}
    if methodology:
        payload["methodology"] = methodology
    return payload


def declared_inputs(sources: dict) -> tuple[provenance.Input, ...]:
    """Every series in a data_sources block, through its last observation."""
    return tuple(provenance.Input(s["id"], through=date.fromisoformat(s["last_observation"]))
                 for s in sources["series"])


def dates(frames: Frames, sources: dict) -> dict:
    """`as_of` (the market date the answer is for: nothing published after it was used), `data_as_of` (the
    latest observation among the essential inputs, or among all inputs when the module names none) and
    `generated_at` (the clock's time when computed)."""
    essential = provenance.essential()
    lasts = list(essential.values()) or [date.fromisoformat(s["last_observation"]) for s in sources["series"]]
    clock = frames.clock or datetime.now(UTC)
    return {"as_of": frames.now.isoformat(), "data_as_of": max(lasts).isoformat() if lasts else None,
            "generated_at": clock.isoformat(timespec="seconds")}


def require(frames: Frames, module: str, essential: Iterable[str], need: str = "any") -> None:
    """Raise InsufficientData when the essential inputs are absent (`any`: all absent; `all`: one absent)."""
    essential = list(essential)
    present = [s for s in essential if frames.get(s) is not None]
    for series_id in present:
        provenance.note_essential(series_id, frames.last_date(series_id))
    if (need == "any" and not present) or (need == "all" and len(present) < len(essential)):
        absent = [s for s in essential if s not in present]
        raise InsufficientData(f"{module}: no observations yet for {', '.join(absent)}", absent)


def staleness_note(sources: dict) -> str:
    """A sentence for summaries naming stale and missing inputs (empty when all are fresh)."""
    parts = []
    if stale_ids(sources):
        parts.append("stale inputs: " + ", ".join(stale_ids(sources)))
    if sources["missing"]:
        parts.append("missing inputs: " + ", ".join(sources["missing"]))
    return (" Note, " + "; ".join(parts) + ".") if parts else ""


# A published copy counts as stale once this many refresh intervals pass with no newer publish: the schedule skips a
# tick while a run is still going, so one slow run costs one interval; a third interval means runs fail or stopped.
STALE_AFTER_REFRESHES = 3


def copy_stale_after(published_at: float, refresh_minutes: int) -> float:
    """When a copy published at `published_at` (epoch seconds) turns stale, on a `refresh_minutes` schedule."""
    return published_at + STALE_AFTER_REFRESHES * refresh_minutes * 60


def copy_staleness(published: dict, now: float) -> dict:
    """`stale` and `stale_after` for a served copy's `_meta.cache`: stale when `now` is past the time its publish
    set. A copy published before copies carried `stale_after` says nothing rather than guess."""
    stale_after = published.get("stale_after")
    if stale_after is None:
        return {}
    return {"stale": now > float(stale_after), "stale_after": float(stale_after)}
