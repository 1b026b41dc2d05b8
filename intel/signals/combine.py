"""Weighted averages of component scores, shared by the rules: each instrument's score is its components'
average weighted by how the instrument responds to each (the sign says the direction of the response)."""
from __future__ import annotations

import numpy as np


def weighted(components: dict[str, np.ndarray], weights: dict[str, float], min_present: int) -> np.ndarray:
    """sum(w * c) / sum(|w|) over the components that have a value that day; NaN on days with fewer than
    `min_present` of them."""
    stack = np.vstack([components[name] for name in weights])
    w = np.array(list(weights.values()), dtype=float)[:, None]
    present = np.isfinite(stack)
    total = np.where(present, stack * w, 0.0).sum(axis=0)
    norm = np.where(present, np.abs(w), 0.0).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = total / norm
    return np.where(present.sum(axis=0) >= min_present, score, np.nan)


def latest(x: np.ndarray) -> float:
    """The value on the last decision day (the clock's), NaN when it has none."""
    return float(x[-1]) if len(x) else float("nan")
