"""Skill of a forecast kind against the base rate that was known when each statement was issued, with a confidence
interval that respects time, and the bar a kind must clear to be published.

- The reference of a statement is its kind's base rate known on its issue day: the frequency of the kind's outcomes
  resolved before that day (from all the history, not from the scored years). Pooling kinds under one base rate
  rewards a forecaster for knowing that VIX rarely tops 30 and equities usually rise, which is no skill at all.
- Skill = 1 - Brier / base-rate Brier. Its interval comes from a moving-block bootstrap over issue days: statements
  whose horizons overlap share outcome days and are not independent, so days are resampled in blocks twice the
  horizon long (at least a month), which keeps that dependence inside each block.
- A headline across kinds is the case-weighted mean of the kinds' skills, never a skill against a pooled base rate.

Pure numpy: the scoring command, the accuracy products and the publication gate all call it."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from intel.predictions.scoring import calibration_table, expected_calibration_error

CONFIDENCE = 0.90
BOOTSTRAP_SAMPLES = 1000
SEED = 20260101  # fixed, so anyone recomputing the record from its export gets the same interval
MIN_BLOCK_DAYS = 21
BAR_ECE = 0.05
BAR_MIN_CASES = 250  # below this a kind has too little record to be judged, and is not published
EPS = 1e-12


@dataclass(frozen=True)
class Cases:
    """The resolved statements of one kind: probability, outcome (0/1), base rate known on the issue day, and the
    issue day as a day number (ascending or not)."""

    p: np.ndarray
    y: np.ndarray
    base: np.ndarray
    day: np.ndarray

    @classmethod
    def of(cls, p, y, base, day) -> Cases:
        return cls(*(np.asarray(a, dtype=np.float64) for a in (p, y, base)), np.asarray(day, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.p)


def _round(x, digits: int = 4):
    return None if x is None or not math.isfinite(x) else round(float(x), digits)


def _daily_sums(cases: Cases) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per issue day (ascending): the day, the model's and the base rate's summed squared errors, the case count."""
    days, inverse = np.unique(cases.day, return_inverse=True)
    model = np.bincount(inverse, (cases.p - cases.y) ** 2, len(days))
    base = np.bincount(inverse, (cases.base - cases.y) ** 2, len(days))
    return days, model, base, np.bincount(inverse, minlength=len(days)).astype(np.float64)


def block_starts(n_days: int, block: int, samples: int, seed: int) -> np.ndarray:
    """(samples, blocks) start indices of a moving-block bootstrap covering n_days issue days."""
    block = max(1, min(block, n_days))
    blocks = -(-n_days // block)
    return np.random.default_rng(seed).integers(0, n_days - block + 1, size=(samples, blocks))


def _resampled(sums: np.ndarray, starts: np.ndarray, block: int) -> np.ndarray:
    """Each bootstrap sample's total of `sums` (per day) over its blocks."""
    block = max(1, min(block, len(sums)))
    prefix = np.concatenate([[0.0], np.cumsum(sums)])
    return (prefix[starts + block] - prefix[starts]).sum(axis=1)


def horizon_days(horizon: dict) -> int:
    """Market days a statement's horizon (`{"n", "unit"}`) spans: how many consecutive daily statements share
    outcome days."""
    n = int(horizon["n"])
    return {"trading_days": n, "calendar_days": n * 5 // 7, "months": n * 21}[horizon["unit"]]


def block_days(horizon_days: int) -> int:
    return max(MIN_BLOCK_DAYS, 2 * horizon_days)


def figures(cases: Cases, horizon_days: int, samples: int = BOOTSTRAP_SAMPLES, seed: int = SEED) -> dict:
    """Every figure of one kind: N, base rate, Brier, base-rate Brier, skill with its block-bootstrap interval,
    log loss, ECE and the reliability table."""
    n = len(cases)
    if not n:
        return {"n": 0}
    p, y, base = cases.p, cases.y, cases.base
    brier, brier_base = float(np.mean((p - y) ** 2)), float(np.mean((base - y) ** 2))
    skill = 1 - brier / brier_base if brier_base > 0 else float("nan")
    lo = hi = float("nan")
    days, model_err, base_err, _ = _daily_sums(cases)
    block = block_days(horizon_days)
    if len(days) >= 2 * block:  # fewer days than two blocks: no interval worth the name
        starts = block_starts(len(days), block, samples, seed)
        with np.errstate(divide="ignore", invalid="ignore"):
            boot = 1 - _resampled(model_err, starts, block) / _resampled(base_err, starts, block)
        boot = boot[np.isfinite(boot)]
        if len(boot):
            lo, hi = np.quantile(boot, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
    pc = np.clip(p, EPS, 1 - EPS)
    return {"n": n, "issue_days": len(days), "base_rate": _round(float(y.mean())),
            "mean_stated": _round(float(p.mean())), "brier": _round(brier), "brier_base_rate": _round(brier_base),
            "skill": _round(skill), "skill_ci90": [_round(lo), _round(hi)], "block_days": block,
            "log_loss": _round(float(-np.mean(y * np.log(pc) + (1 - y) * np.log(1 - pc)))),
            "ece": _round(expected_calibration_error(p, y)), "reliability": calibration_table(p, y)}


def verdict(row: dict) -> tuple[bool, str]:
    """Whether a kind's record earns publication, and the reason in words."""
    if row.get("n", 0) < BAR_MIN_CASES:
        return False, f"{row.get('n', 0)} resolved cases, fewer than the {BAR_MIN_CASES} the bar needs"
    low = row["skill_ci90"][0]
    if row["skill"] is None or row["skill"] <= 0:
        return False, f"no skill against the base rate known on each issue day (skill {row['skill']})"
    if low is None or low <= 0:
        return False, f"skill {row['skill']} but its 90% interval reaches {low}: not shown to beat the base rate"
    if row["ece"] >= BAR_ECE:
        return False, f"calibration error {row['ece']} is not below {BAR_ECE}"
    return True, f"skill {row['skill']} (90% interval {low} to {row['skill_ci90'][1]}), ECE {row['ece']}"


def headline(kinds: dict[str, Cases], horizons: dict[str, int], samples: int = BOOTSTRAP_SAMPLES,
             seed: int = SEED) -> dict:
    """The case-weighted mean of the kinds' skills, with an interval from resampling the same blocks of issue days
    for every kind at once (the longest kind's block)."""
    kinds = {k: c for k, c in kinds.items() if len(c)}
    if not kinds:
        return {"n": 0}
    weights = {k: len(c) for k, c in kinds.items()}
    total = sum(weights.values())
    point = {}
    for k, c in kinds.items():
        base = float(np.sum((c.base - c.y) ** 2))
        point[k] = 1 - float(np.sum((c.p - c.y) ** 2)) / base if base > 0 else 0.0
    skill = sum(weights[k] * point[k] for k in kinds) / total
    every_day = np.unique(np.concatenate([c.day for c in kinds.values()]))
    block = max(block_days(horizons.get(k, 1)) for k in kinds)
    lo = hi = float("nan")
    if len(every_day) >= 2 * block:
        starts = block_starts(len(every_day), block, samples, seed)
        boot = np.zeros(samples)
        for k, c in kinds.items():
            days, model_err, base_err, _ = _daily_sums(c)
            at = np.searchsorted(every_day, days)
            model_all, base_all = np.zeros(len(every_day)), np.zeros(len(every_day))
            model_all[at], base_all[at] = model_err, base_err
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = _resampled(model_all, starts, block) / _resampled(base_all, starts, block)
            boot += weights[k] * np.where(np.isfinite(ratio), 1 - ratio, 0.0)
        lo, hi = np.quantile(boot / total, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
    return {"n": total, "kinds": len(kinds), "skill": _round(skill), "skill_ci90": [_round(lo), _round(hi)],
            "block_days": block,
            "method": "case-weighted mean of each kind's skill against its own base rate known on each issue day"}
