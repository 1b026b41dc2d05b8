"""Causal feature transforms: each maps a series' values (ascending by date) to one number per observation,
element i computed from values[: i + 1] only, NaN during the warm-up. Windows count observations.

Because element i never reads past i, the feature on day D is the transform of the whole history taken at
the last observation published by D: the back-test computes it once per series instead of once per day
(tests/intel/predictions/test_point_in_time.py checks it against the transform of the truncated history)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from intel import indicators

Transform = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Feature:
    """One input of a calibrated statement: a causal transform of one series."""

    name: str  # e.g. "vix_log_level"; also names the input in the issuer string
    series: str
    transform: Transform


def _lagged(x: np.ndarray, n: int) -> np.ndarray:
    out = np.full(len(x), np.nan)
    if len(x) > n:
        out[n:] = x[:-n]
    return out


def level(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).copy()


def log_level(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return np.log(np.where(x > 0, x, np.nan))


def log_momentum(n: int) -> Transform:
    """log(v_i / v_{i-n})."""
    def fn(x: np.ndarray) -> np.ndarray:
        logs = log_level(x)
        return logs - _lagged(logs, n)
    return fn


def change(n: int) -> Transform:
    """v_i - v_{i-n}, in the series' units."""
    def fn(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        return x - _lagged(x, n)
    return fn


def trailing_mean(n: int) -> Transform:
    return lambda x: indicators.sma(x, n)


def gap_to_mean(n: int) -> Transform:
    """v_i minus the mean of the last n values (including v_i), in the series' units."""
    def fn(x: np.ndarray) -> np.ndarray:
        return np.asarray(x, dtype=np.float64) - indicators.sma(x, n)
    return fn


def log_gap_to_mean(n: int) -> Transform:
    """log v_i minus the mean of the last n log values: how stretched a level is against its recent norm."""
    def fn(x: np.ndarray) -> np.ndarray:
        logs = log_level(x)
        return logs - indicators.sma(logs, n)
    return fn


def percentile(n: int) -> Transform:
    """Share (0..1) of the last n values at or below v_i."""
    def fn(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        out = np.full(len(x), np.nan)
        if len(x) >= n:
            windows = sliding_window_view(x, n)
            out[n - 1:] = (windows <= windows[:, -1:]).mean(axis=1)
        return out
    return fn


def realized_vol(n: int) -> Transform:
    """Standard deviation of the last n log returns (per observation, not annualised)."""
    def fn(x: np.ndarray) -> np.ndarray:
        returns = np.diff(log_level(x), prepend=np.nan)
        out = np.full(len(x), np.nan)
        if len(x) > n:
            out[n:] = np.sqrt(indicators.rolling_var(returns[1:], n))[: len(x) - n]
        return out
    return fn


def drawdown(n: int) -> Transform:
    """v_i / max(last n values) - 1 (0 at a new high)."""
    def fn(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        out = np.full(len(x), np.nan)
        if len(x) >= n:
            out[n - 1:] = x[n - 1:] / sliding_window_view(x, n).max(axis=1) - 1.0
        return out
    return fn
