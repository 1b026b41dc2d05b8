"""Issuing and resolving predictions: the live calls (`issue`, `resolve`) and the pure back-test driver.

The back-test walks market days (weekdays) on the clock. On day D it sees an observation only once published
(its date plus the catalog's release lag, as the replay provider serves it). Features are computed once per
series by causal transforms (features.py) and read at the last observation published by D, which is what
`issue` computes from a Frames truncated at D (tests/intel/predictions/test_point_in_time.py holds them
equal). Each probability comes from a fit on pairs whose outcome was published before the fit's cutoff,
and the cutoff is never after D."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property

import numpy as np
import polars as pl

from intel import catalog
from intel.frames import Frames
from intel.predictions.calibration import Fit, fit_question
from intel.predictions.forecaster import Forecast, WalkForward
from intel.predictions.questions import QUESTIONS, Question
from intel.predictions.resolution import REPLAY_VINTAGE, Decision, day_number, decide, iso, resolution_record
from intel.predictions.resolution import resolve as resolve  # re-exported: the live asset's resolution call
from intel.predictions.skill import horizon_days

FALLBACK_MAX_AGE = 10  # days: staleness limit for a series the catalog does not know
Arrays = dict[str, tuple[np.ndarray, np.ndarray]]  # series id -> (day numbers, values), ascending


def series_arrays(long: pl.DataFrame) -> Arrays:
    """Split a long `series_id, date, value` frame into per-series arrays (finite values, one per date)."""
    clean = (long.select("series_id", "date", "value").filter(pl.col("value").is_finite())
             .unique(["series_id", "date"], keep="last").sort(["series_id", "date"]))
    out: Arrays = {}
    for (sid,), part in clean.partition_by("series_id", as_dict=True).items():
        out[sid] = (part["date"].to_numpy().astype("datetime64[D]").astype(np.int64), part["value"].to_numpy())
    return out


def market_days(start: int, end: int) -> np.ndarray:
    """Weekdays from start to end (day numbers; day 0, 1970-01-01, was a Thursday)."""
    days = np.arange(start, end + 1, dtype=np.int64)
    return days[(days + 3) % 7 < 5]


def next_market_day(day: int) -> int:
    weekday = (day + 3) % 7
    return day + (7 - weekday if weekday >= 5 else 0)


def max_age(series_id: str) -> int:
    entry = catalog.get(series_id)
    return entry.max_age_days if entry else FALLBACK_MAX_AGE


def overlap_days(question: Question) -> int:
    """How many consecutive daily statements share outcome days: the fit's effective-sample divisor."""
    return horizon_days(question.horizon)


@dataclass(frozen=True)
class Issuer:
    """What `issue` needs for one question on one day: the period's forecast and the base rate known that day."""

    forecast: Forecast
    base_rate: float
    base_cases: int

    @property
    def cutoff(self) -> str:
        return self.forecast.cutoff


def prediction_record(question: Question, day: date, origin: str, probability: float, inputs_as_of: dict,
                      issuer: Issuer) -> dict:
    d = day.isoformat()
    return {"id": f"{origin}:{d}:{question.id}", "question": question.id, "statement": question.statement(day),
            "series": question.series, "comparison": question.comparison, "threshold": question.threshold,
            "horizon": question.horizon, "issued_on": d, "issuer": question.issuer, "category": question.category,
            "inputs_as_of": inputs_as_of, "probability": round(probability, 4),
            "model": issuer.forecast.model_record(), "origin": origin,
            # the reference the statement is scored against: its kind's outcome frequency known on the issue day
            "base_rate": round(issuer.base_rate, 4), "base_rate_cases": issuer.base_cases}


def issue(frames: Frames, day: date, origin: str, issuers: dict[str, Issuer]) -> list[dict]:
    """The day's predictions from point-in-time frames (every observation in them published by `day`), one
    per question with a forecast whose cutoff is not after `day`, fresh inputs and finite features. The live
    record carries only the kinds whose out-of-sample record earned publication (forecaster.py)."""
    out = []
    for question in QUESTIONS.values():
        issuer = issuers.get(question.id)
        if issuer is None or issuer.cutoff > day.isoformat():
            continue
        if origin == "live" and not issuer.forecast.published:
            continue
        inputs_as_of, row = {}, []
        for series_id in question.input_series:
            frame = frames.get(series_id)
            if frame is None or (day - frame["date"][-1]).days > max_age(series_id):
                break
            inputs_as_of[series_id] = frame["date"][-1].isoformat()
        else:
            row = [float(f.transform(frames.get(f.series)["value"].to_numpy())[-1]) for f in question.features]
        if row and np.all(np.isfinite(row)):
            out.append(prediction_record(question, day, origin, issuer.forecast.probability(row), inputs_as_of,
                                         issuer))
    return out


@dataclass
class QuestionTable:
    """One question over every market day of the history: features as seen that day, the outcome and the
    market day it was first published (NaN/-1 where unknown)."""

    question: Question
    days: np.ndarray
    x: np.ndarray  # (days, features); NaN where an input was missing or stale on the day
    as_of: dict[str, np.ndarray]  # series id -> day number of its last published observation (-1: none)
    decisions: list[Decision | None]
    resolved_on: np.ndarray  # market day the outcome became known (a large number when never)
    fits: dict[str, Fit | None] = field(default_factory=dict)

    def fit(self, cutoff: int) -> Fit | None:
        key = iso(cutoff)
        if key not in self.fits:
            usable = (self.resolved_on < cutoff) & np.all(np.isfinite(self.x), axis=1)
            idx = np.flatnonzero(usable)
            y = self.outcomes[idx]
            span = [iso(self.days[idx[0]]), iso(self.days[idx[-1]])] if len(idx) else []
            self.fits[key] = fit_question(self.question.id, tuple(f.name for f in self.question.features),
                                          self.x[idx], y, span, overlap_days(self.question), key) if len(idx) else None
        return self.fits[key]

    @cached_property
    def outcomes(self) -> np.ndarray:
        """Each day's outcome as 0/1 (NaN where undecided)."""
        return np.array([np.nan if d is None else float(d.outcome) for d in self.decisions])

    def known_base_rates(self) -> tuple[np.ndarray, np.ndarray]:
        """Per day: the frequency of this question's outcomes resolved strictly before it (0.5 with none yet),
        and how many there were: the base rate a reader could have known on the day."""
        decided = np.isfinite(self.outcomes)
        resolved_on, outcomes = self.resolved_on[decided], self.outcomes[decided]
        order = np.argsort(resolved_on, kind="stable")
        cumulative = np.concatenate([[0.0], np.cumsum(outcomes[order])])
        n = np.searchsorted(resolved_on[order], self.days, side="left")
        return np.where(n > 0, cumulative[n] / np.maximum(n, 1), 0.5), n


NEVER = np.iinfo(np.int64).max // 2


def question_table(question: Question, arrays: Arrays, days: np.ndarray) -> QuestionTable | None:
    if any(s not in arrays for s in question.input_series):
        return None
    as_of, fresh = {}, np.ones(len(days), dtype=bool)
    for sid in question.input_series:
        sdays, _ = arrays[sid]
        k = np.searchsorted(sdays, days - catalog.release_lag(sid), side="right") - 1
        last = np.where(k >= 0, sdays[np.maximum(k, 0)], -1)
        as_of[sid] = last
        fresh &= (k >= 0) & (days - last <= max_age(sid))
    x = np.full((len(days), len(question.features)), np.nan)
    for col, feature in enumerate(question.features):
        sdays, values = arrays[feature.series]
        k = np.searchsorted(sdays, days - catalog.release_lag(feature.series), side="right") - 1
        x[:, col] = np.where(k >= 0, feature.transform(values)[np.maximum(k, 0)], np.nan)
    x[~fresh] = np.nan
    sdays, values = arrays[question.series]
    lag = catalog.release_lag(question.series)
    decisions: list[Decision | None] = []
    resolved_on = np.full(len(days), NEVER, dtype=np.int64)
    for i, day in enumerate(days):
        decision = decide(question.comparison, question.threshold, question.n, question.unit, int(day), sdays,
                          values) if fresh[i] else None
        decisions.append(decision)
        if decision is not None:
            resolved_on[i] = next_market_day(int(sdays[decision.needs_through]) + lag)
    return QuestionTable(question, days, x, as_of, decisions, resolved_on)


def tables(arrays: Arrays, end: date, questions: Iterable[Question] | None = None) -> dict[str, QuestionTable]:
    """Every question's table over the market days from the earliest observation to `end`."""
    first = min(int(d[0]) for d, _ in arrays.values())
    days = market_days(first, day_number(end))
    out = {}
    for question in questions or QUESTIONS.values():
        table = question_table(question, arrays, days)
        if table is not None:
            out[question.id] = table
    return out


def yearly_refit(day):
    """Refit policy: an expanding window refitted on the 1st of January of the issue year (of each day, for an
    array of day numbers)."""
    out = np.asarray(day, dtype=np.int64).astype("datetime64[D]").astype("datetime64[Y]").astype("datetime64[D]")
    out = out.astype(np.int64)
    return int(out) if out.ndim == 0 else out


def frozen_fit(cutoff: date) -> Callable[[int], int]:
    """Refit policy: one fit on outcomes published before `cutoff`, used for every later issue day."""
    return lambda day: day_number(cutoff)


def fit_all(long: pl.DataFrame, day: date, policy: Callable[[int], int] = yearly_refit) -> dict[str, Issuer]:
    """What `issue` needs on `day` (questions without a model yet are absent), from the history as stored
    (`series_id, date, value`), using only outcomes published before the policy's cutoff for `day`."""
    cutoff, today = policy(day_number(day)), day_number(day)
    out = {}
    for qid, table in tables(series_arrays(long), day).items():
        walk = WalkForward(table, policy, overlap_days(table.question))
        forecast = walk.through(cutoff)
        if forecast is not None:
            i = int(np.searchsorted(table.days, today, side="right")) - 1
            out[qid] = Issuer(forecast, *walk.base_rate(i))
    return out


@dataclass
class BacktestResult:
    predictions: list[dict]  # by issue day, then question
    resolutions: list[dict]  # by resolution day, then prediction id
    skipped: dict[str, int]  # question -> market days without a prediction (no fit yet, stale or missing inputs)
    # (question, resolved_on, outcome) of every market day's statement resolved before `start`: what a
    # reader knew of each question's base rate when the replay began (scoring.prior_rates)
    history: list[tuple[str, str, bool]]


def run_backtest(long: pl.DataFrame, start: date, end: date, policy: Callable[[int], int] = yearly_refit,
                 vintage: str = REPLAY_VINTAGE, questions: Iterable[Question] | None = None) -> BacktestResult:
    """Replay `start`..`end`: predictions (origin "backtest") and the resolutions recorded by `end`.
    `policy` maps an issue day to its fit cutoff, never after the day (checked)."""
    all_tables = tables(series_arrays(long), end, questions)
    predictions, resolutions, skipped, history = [], [], {}, []
    lo, hi = day_number(start), day_number(end)
    for qid, table in all_tables.items():
        skipped[qid] = 0
        walk = WalkForward(table, policy, overlap_days(table.question))
        for i in np.flatnonzero(table.resolved_on < lo):
            history.append((qid, iso(table.resolved_on[i]), table.decisions[i].outcome))
        for i in np.flatnonzero((table.days >= lo) & (table.days <= hi)):
            day = int(table.days[i])
            forecast = walk.through(int(walk.cutoffs[i]))
            if forecast is None or not np.isfinite(walk.calibrated[i]):
                skipped[qid] += 1
                continue
            inputs = {sid: iso(table.as_of[sid][i]) for sid in table.question.input_series}
            record = prediction_record(table.question, date.fromisoformat(iso(day)), "backtest",
                                       float(walk.calibrated[i]), inputs, Issuer(forecast, *walk.base_rate(i)))
            predictions.append(record)
            if table.resolved_on[i] <= hi:
                resolutions.append(resolution_record(record, table.decisions[i], iso(table.resolved_on[i]),
                                                     vintage))
    predictions.sort(key=lambda p: (p["issued_on"], p["question"]))
    resolutions.sort(key=lambda r: (r["resolved_on"], r["prediction_id"]))
    return BacktestResult(predictions, resolutions, skipped, history)
