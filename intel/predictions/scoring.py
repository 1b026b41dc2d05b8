"""Accuracy of resolved predictions: counts, hit rate, Brier score against two base rates, log loss, a
10-bucket calibration table and the expected calibration error, overall, by category and by origin.

Two base rates, both reported:
- `base_rate` (climatology): the outcome's frequency in the scored set itself. Its Brier score is the usual
  reference of the Brier skill score (`bss`), though no forecaster could have known it in advance.
- `prior_base_rate`: for each prediction, the frequency of its question's outcome among resolutions
  recorded before its issue date (0.5 when there were none): a reference that could have been issued
  on the day (`bss_prior`)."""
from __future__ import annotations

import math
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable

import numpy as np

BUCKETS = 10
EPS = 1e-12


def _round(x: float | None, digits: int = 4) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), digits)


def calibration_table(p: np.ndarray, y: np.ndarray) -> list[dict]:
    """Equal-width probability buckets [0, 0.1), ..., [0.9, 1.0]: mean predicted, observed frequency, N."""
    bucket = np.minimum((p * BUCKETS).astype(int), BUCKETS - 1)
    rows = []
    for b in range(BUCKETS):
        mask = bucket == b
        n = int(mask.sum())
        rows.append({"bucket": f"{b / BUCKETS:.1f}-{(b + 1) / BUCKETS:.1f}", "n": n,
                     "mean_predicted": _round(p[mask].mean()) if n else None,
                     "observed_frequency": _round(y[mask].mean()) if n else None})
    return rows


def expected_calibration_error(p: np.ndarray, y: np.ndarray) -> float:
    """Sum over buckets of (bucket share) * |mean predicted - observed frequency|."""
    bucket = np.minimum((p * BUCKETS).astype(int), BUCKETS - 1)
    total = 0.0
    for b in range(BUCKETS):
        mask = bucket == b
        if mask.any():
            total += mask.mean() * abs(p[mask].mean() - y[mask].mean())
    return float(total)


def summary(p: np.ndarray, y: np.ndarray, prior: np.ndarray) -> dict:
    """The figures of one group: p the predicted probabilities, y the outcomes (0/1), prior the base rate
    known before each issue date."""
    n = len(p)
    if not n:
        return {"n": 0}
    rate = float(y.mean())
    brier = float(np.mean((p - y) ** 2))
    brier_base = float(np.mean((rate - y) ** 2))
    brier_prior = float(np.mean((prior - y) ** 2))
    pc = np.clip(p, EPS, 1 - EPS)
    return {"n": n, "hits": int(np.sum((p >= 0.5) == (y == 1))), "hit_rate": _round(np.mean((p >= 0.5) == (y == 1))),
            "base_rate": _round(rate), "brier": _round(brier), "brier_base_rate": _round(brier_base),
            "bss": _round(1 - brier / brier_base) if brier_base > 0 else None,
            "brier_prior_base_rate": _round(brier_prior),
            "bss_prior": _round(1 - brier / brier_prior) if brier_prior > 0 else None,
            "log_loss": _round(-np.mean(y * np.log(pc) + (1 - y) * np.log(1 - pc))),
            "ece": _round(expected_calibration_error(p, y)), "calibration": calibration_table(p, y)}


def prior_rates(pairs: list[tuple[dict, dict]], history: Iterable[tuple[str, str, bool]] = ()) -> np.ndarray:
    """For each (prediction, resolution), the frequency of its question's outcome among resolutions recorded
    before its issue date: from `history` ((question, resolved_on, outcome) triples, e.g. earlier resolved
    cases outside the scored set) and from the scored pairs themselves."""
    by_question: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for question, resolved_on, outcome in history:
        by_question[question].append((resolved_on, bool(outcome)))
    for prediction, resolution in pairs:
        by_question[prediction["question"]].append((resolution["resolved_on"], bool(resolution["outcome"])))
    cumulative = {}
    for question, items in by_question.items():
        items.sort()
        dates = [d for d, _ in items]
        counts = np.concatenate([[0], np.cumsum([o for _, o in items])])
        cumulative[question] = (dates, counts)
    out = np.full(len(pairs), 0.5)
    for i, (prediction, _) in enumerate(pairs):
        dates, counts = cumulative[prediction["question"]]
        k = bisect_left(dates, prediction["issued_on"])  # resolved strictly before the issue day
        if k:
            out[i] = counts[k] / k
    return out


def score(pairs: list[tuple[dict, dict]], history: Iterable[tuple[str, str, bool]] = ()) -> dict:
    """Accuracy of (prediction, resolution) pairs: `overall`, `by_category`, `by_origin`."""
    p = np.array([pr["probability"] for pr, _ in pairs], dtype=np.float64)
    y = np.array([bool(r["outcome"]) for _, r in pairs], dtype=np.float64)
    prior = prior_rates(pairs, history)
    groups: dict[str, dict[str, list[int]]] = {"by_category": defaultdict(list), "by_origin": defaultdict(list)}
    for i, (prediction, _) in enumerate(pairs):
        groups["by_category"][prediction["category"]].append(i)
        groups["by_origin"][prediction["origin"]].append(i)
    out = {"overall": summary(p, y, prior),
           "base_rate_used": "climatology: the outcome frequency in the scored set (bss); bss_prior uses the "
                             "frequency among resolutions recorded before each issue date"}
    for name, members in groups.items():
        out[name] = {key: summary(p[idx], y[idx], prior[idx]) for key, idx in sorted(members.items())}
    return out


def pooled_reliability(tables: Iterable[list[dict]]) -> list[dict]:
    """Calibration tables of the same buckets (calibration_table's), pooled: each bucket's N summed and its means
    weighted by N, which is the table of all their cases together."""
    pooled: dict[str, list[float]] = {}
    for table in tables:
        for row in table:
            n, total = row["n"], pooled.setdefault(row["bucket"], [0, 0.0, 0.0])
            if n:
                total[0] += n
                total[1] += n * row["mean_predicted"]
                total[2] += n * row["observed_frequency"]
    return [{"bucket": bucket, "n": int(n), "mean_predicted": _round(p / n) if n else None,
             "observed_frequency": _round(y / n) if n else None} for bucket, (n, p, y) in pooled.items()]
