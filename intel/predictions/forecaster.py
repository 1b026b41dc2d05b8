"""Walk-forward forecasts: what each question may say on an issue day, from outcomes published before its cutoff.

For each cutoff (the refit policy's: the 1st of January of the issue year), in order:
1. the raw model: the ridge logit of calibration.py, fitted on the outcomes published before the cutoff;
2. the calibration map: a Platt map of the raw model's out-of-sample probabilities, fitted on the statements of
   earlier periods (each made by the raw model of its own period, so never by a model that had seen its outcome)
   whose outcomes were published before the cutoff. The map is shrunk toward the base rate known at the cutoff
   (slope toward 0, intercept toward that rate's logit; the overlap of consecutive statements counts against the
   evidence), never turns a score around (a negative out-of-sample slope gives slope 0 and the base rate), and
   stays at the base rate until the record holds MIN_INDEPENDENT independent outcomes: a year of one bear market
   is not evidence enough to say 10% where the record says 55% (XLC in 2023 before this rule);
3. the gate: the calibrated out-of-sample record of the earlier periods, resolved before the cutoff, scored against
   the base rate known on each issue day (skill.py). A kind is published in the live record for the period only
   when that record clears the bar (skill above 0, the lower end of its 90% block-bootstrap interval above 0, ECE
   below 0.05, at least 250 cases); otherwise it stays in the back-test, marked withheld.

Nothing is tuned on the period being forecast: each step reads only outcomes published before its cutoff."""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from intel.predictions import skill
from intel.predictions.calibration import MIN_CLASS_CASES, MIN_FIT_CASES, P_MAX, P_MIN, PRIOR_SD, Fit, logit_newton
from intel.predictions.calibration import predict as predict_raw

Policy = Callable[[int], int]
# finished walks by (question, cutoff, overlap, digest of the data before the cutoff): a process that issues on
# many days of one year (the live asset, a replay) fits each year's models once
_DONE: dict[tuple, tuple] = {}
DONE_MAX = 256
# Out-of-sample outcomes, counted in whole horizons (overlapping statements share one), before a calibration map may
# leave the base rate: a conventional minimum sample, fixed before the back-test was scored
MIN_INDEPENDENT = 30
METHOD = ("Each kind (question) is forecast walk-forward: on the 1st of January of each year a ridge logit of "
          "features fixed in advance is fitted on the outcomes published before that day; its probabilities are "
          "then mapped by a Platt map fitted on the earlier years' out-of-sample statements resolved before that "
          "day, shrunk toward the base rate known that day (the frequency of every outcome resolved before it; "
          "overlapping horizons count against the evidence), never with a negative slope (a score that points the "
          "wrong way out of sample gives the base rate), and left at the base rate until the out-of-sample record "
          f"holds {MIN_INDEPENDENT} independent outcomes (its statements divided by the horizon). A kind is "
          "published in the live record for the year only when its calibrated out-of-sample record resolved before "
          "the year clears the bar (at least 250 cases, skill above 0 against the base rate known on each issue "
          "day with the lower end of its 90% block-bootstrap interval above 0, ECE below 0.05); otherwise it stays "
          "in the back-test, marked withheld (`model.published: false`).")


@dataclass(frozen=True)
class Platt:
    """p = sigmoid(intercept + slope * standardised logit(raw p)), fitted on out-of-sample statements."""

    intercept: float
    slope: float
    mean: float
    scale: float
    n: int

    def apply(self, raw: np.ndarray) -> np.ndarray:
        z = (_logit(raw) - self.mean) / self.scale
        return np.clip(1.0 / (1.0 + np.exp(-np.clip(self.intercept + self.slope * z, -50, 50))), P_MIN, P_MAX)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=np.float64), P_MIN, P_MAX)
    return np.log(p / (1 - p))


def fit_platt(raw: np.ndarray, y: np.ndarray, overlap: int, base_rate: float) -> Platt | None:
    """The map from `raw` (out-of-sample probabilities) to outcomes `y`, shrunk toward `base_rate` (the frequency
    of every outcome known at the cutoff), or None on too small a sample."""
    positives = int(y.sum())
    if len(y) < MIN_FIT_CASES or min(positives, len(y) - positives) < MIN_CLASS_CASES:
        return None
    z = _logit(raw)
    mean, scale = float(z.mean()), float(z.std()) or 1.0
    prior = float(_logit(base_rate))
    if len(y) / max(overlap, 1) < MIN_INDEPENDENT:  # too few independent outcomes to move off the base rate
        return Platt(prior, 0.0, mean, scale, len(y))
    w = logit_newton(((z - mean) / scale)[:, None], y, max(overlap, 1) / PRIOR_SD ** 2, intercept_prior=prior)
    intercept, slope = float(w[0]), float(w[1])
    if slope < 0:  # a score that points the wrong way out of sample is not inverted: it carries no evidence
        intercept, slope = prior, 0.0
    return Platt(intercept, slope, mean, scale, len(y))


@dataclass(frozen=True)
class Forecast:
    """One question's model for the issue days of one period: raw fit, calibration map and gate."""

    fit: Fit
    platt: Platt
    published: bool
    gate: str  # the gate's reason, in words
    record: dict  # the gate's figures (skill.figures) on the record it judged

    @property
    def cutoff(self) -> str:
        return self.fit.cutoff

    def probability(self, x) -> float:
        raw = predict_raw(self.fit, np.asarray(x, dtype=np.float64)[None, :])
        return float(self.platt.apply(raw)[0])

    def model_record(self) -> dict:
        return {**self.fit.model_record(),
                "calibration": {"method": "Platt map of out-of-sample probabilities, shrunk toward the base rate, "
                                          "slope never below 0", "n": self.platt.n,
                                "intercept": round(self.platt.intercept, 6), "slope": round(self.platt.slope, 6)},
                "published": self.published}


def cutoffs_of(policy: Policy, days: np.ndarray) -> np.ndarray:
    """The policy's cutoff of each day: in one call where the policy takes an array (the yearly one does)."""
    try:
        return np.broadcast_to(np.asarray(policy(days), dtype=np.int64), days.shape).copy()
    except (TypeError, ValueError):
        return np.array([policy(int(d)) for d in days], dtype=np.int64)


class WalkForward:
    """The walk-forward of one question table (backtest.QuestionTable) under a refit policy: every period's
    Forecast, each day's raw and calibrated out-of-sample probability (NaN where there was none)."""

    def __init__(self, table, policy: Policy, overlap: int) -> None:
        self.table, self.overlap = table, overlap
        self.cutoffs = cutoffs_of(policy, table.days)
        if np.any(self.cutoffs > table.days):
            raise ValueError("a fit cutoff falls after its issue day")
        self.raw = np.full(len(table.days), np.nan)
        self.calibrated = np.full(len(table.days), np.nan)
        self.forecasts: dict[int, Forecast | None] = {}
        self._periods = np.unique(self.cutoffs)
        self._base, self._base_n = table.known_base_rates()

    def through(self, cutoff: int) -> Forecast | None:
        """The forecast of the period with this cutoff, walking every earlier period first. A walk already done
        on the same data before the cutoff (the same question on a later day of the same year, in this process)
        is taken from memory: everything up to the cutoff rests only on that data."""
        if cutoff not in self.forecasts:
            k = int(np.searchsorted(self.table.days, cutoff))
            key = (self.table.question.id, cutoff, self.overlap, self._fingerprint(k, cutoff))
            done = _DONE.get(key)
            if done is not None:
                forecasts, self.raw[:k], self.calibrated[:k] = done
                self.forecasts.update(forecasts)
            else:
                for c in self._periods[self._periods < cutoff]:
                    self._forecast(int(c))
                self._forecast(cutoff)
                _DONE[key] = (dict(self.forecasts), self.raw[:k].copy(), self.calibrated[:k].copy())
                while len(_DONE) > DONE_MAX:
                    _DONE.pop(next(iter(_DONE)))
            self._fill(cutoff)
        return self.forecasts[cutoff]

    def base_rate(self, i: int) -> tuple[float, int]:
        return float(self._base[i]), int(self._base_n[i])

    def _fingerprint(self, k: int, cutoff: int) -> str:
        """A digest of everything the walk up to `cutoff` reads: the days before it, their cutoffs and features,
        and their outcomes and resolution days as known before it."""
        t = self.table
        known = t.resolved_on[:k] < cutoff
        digest = hashlib.blake2b(digest_size=16)
        for part in (t.days[:k], self.cutoffs[:k], t.x[:k], np.where(known, t.outcomes[:k], -1.0),
                     np.where(known, t.resolved_on[:k], -1)):
            digest.update(np.ascontiguousarray(part).tobytes())
        return digest.hexdigest()

    def _forecast(self, cutoff: int) -> Forecast | None:
        """The period's forecast (from data before `cutoff` only), then its statements' probabilities."""
        if cutoff in self.forecasts:
            return self.forecasts[cutoff]
        table = self.table
        fit = table.fit(cutoff)
        before = (table.days < cutoff) & (table.resolved_on < cutoff)
        known = before & np.isfinite(self.raw)
        y = table.outcomes[known]
        every = table.outcomes[np.isfinite(table.outcomes) & (table.resolved_on < cutoff)]
        base_rate = float(every.mean()) if len(every) else 0.5
        platt = fit_platt(self.raw[known], y, self.overlap, base_rate) if len(y) else None
        forecast = None
        if fit is not None and platt is not None:
            idx = np.flatnonzero(before & np.isfinite(self.calibrated))
            cases = skill.Cases.of(self.calibrated[idx], table.outcomes[idx], self._base[idx], table.days[idx])
            record = skill.figures(cases, self.overlap)
            published, reason = skill.verdict(record)
            forecast = Forecast(fit, platt, published, reason, record)
        self.forecasts[cutoff] = forecast
        self._fill(cutoff)
        return forecast

    def _fill(self, cutoff: int) -> None:
        """The raw and calibrated probabilities of the period's statements, from its forecast's model."""
        table, forecast = self.table, self.forecasts[cutoff]
        period = (self.cutoffs == cutoff) & np.all(np.isfinite(table.x), axis=1)
        fit = forecast.fit if forecast is not None else table.fit(cutoff)
        if fit is not None:
            self.raw[period] = predict_raw(fit, table.x[period])
            if forecast is not None:
                self.calibrated[period] = forecast.platt.apply(self.raw[period])

