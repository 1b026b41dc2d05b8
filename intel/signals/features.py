"""Backward-looking features of one series' observations, for the strategy rules: each value at observation i
reads observations i and earlier only (NaN during the warm-up), so carrying it onto the decision calendar by
publication date (intel/signals/panel.py) keeps every decision point in time."""
from __future__ import annotations

import numpy as np

from intel.indicators import rolling_std, sma


def change(n: int):
    """The change over the last n observations, in the series' units."""
    def feature(values: np.ndarray) -> np.ndarray:
        out = np.full(len(values), np.nan)
        out[n:] = values[n:] - values[:-n]
        return out
    return feature


def pct_change(n: int):
    """The fractional change over the last n observations."""
    def feature(values: np.ndarray) -> np.ndarray:
        out = np.full(len(values), np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[n:] = np.where(values[:-n] > 0, values[n:] / values[:-n] - 1, np.nan)
        return out
    return feature


def above_average(n: int):
    """How far the value sits above its n-observation simple moving average, as a fraction of it."""
    def feature(values: np.ndarray) -> np.ndarray:
        average = sma(values, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(average > 0, values / average - 1, np.nan)
    return feature


def realized_vol(n: int):
    """The sample standard deviation of the last n daily log returns (not annualized)."""
    def feature(values: np.ndarray) -> np.ndarray:
        out = np.full(len(values), np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[1:] = rolling_std(np.diff(np.log(values)), n)
        return out
    return feature


def trailing_rank(inner, n: int):
    """Where `inner`'s latest value ranks among its last n values (0: the lowest, 1: the highest)."""
    def feature(values: np.ndarray) -> np.ndarray:
        x = inner(values) if inner is not None else values
        out = np.full(len(x), np.nan)
        if len(x) >= n:
            windows = np.lib.stride_tricks.sliding_window_view(x, n)
            last = windows[:, -1:]
            ok = np.isfinite(windows).all(axis=1)
            rank = (windows < last).sum(axis=1) / (n - 1)
            out[n - 1:] = np.where(ok, rank, np.nan)
        return out
    return feature


def standardized_change(n: int, window: int):
    """The change over n observations divided by the standard deviation of such changes over the trailing
    `window` observations: how unusual the move is for this series, whatever its units."""
    moves = change(n)

    def feature(values: np.ndarray) -> np.ndarray:
        x = moves(values)
        scale = rolling_std(x, window)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(scale > 0, x / scale, np.nan)
    return feature


def squash(x: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """Into (-1, 1): tanh(x / scale), NaN kept."""
    return np.tanh(np.asarray(x, dtype=float) / scale)
