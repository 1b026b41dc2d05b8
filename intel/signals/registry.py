"""What a strategy is: a plain function of the point-in-time panel (intel/signals/panel.py) giving, per instrument,
a score in [-1, 1] for every decision day (NaN: no decision). A score at or above the strategy's threshold is a long
signal, at or below minus it a short one, between them flat; its size is the signal's confidence. Adding a strategy
is one file and one line in intel/signals/strategies.py, which lists them all."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from intel.signals.panel import Panel

# (panel) -> {instrument id: scores on the panel's days}
Rule = Callable[[Panel], dict[str, np.ndarray]]


@dataclass(frozen=True)
class Strategy:
    name: str
    description: str
    horizon: int  # trading days a signal is held: the forward window its edge is measured over
    threshold: float  # |score| at which the rule fires
    modules: tuple[str, ...]  # registry modules whose logic the rule mirrors (the rationale names them)
    inputs: tuple[str, ...]  # series ids the rule reads
    instruments: tuple[str, ...]
    rule: Rule
    explain: Callable[[Panel], list[str]]  # today's reading of each input, one sentence each


def direction(score: float, threshold: float) -> str:
    if not np.isfinite(score):
        return "flat"
    return "long" if score >= threshold else "short" if score <= -threshold else "flat"
