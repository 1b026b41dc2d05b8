"""Helpers shared by the volatility modules (vix_term_structure, vol_of_vol, volatility_regime): the VIX
states, the operation of the fixed rule thresholds they publish (through envelope.constant) and the provenance of
the figures a shared helper leaves unnamed. Registers nothing (underscore file)."""
from __future__ import annotations

import numpy as np

from intel import envelope, provenance

# VIX states used by volatility_regime (and quoted by the others): the lower bound of each state
VIX_STATES = ("low", "normal", "elevated", "crisis")
VIX_BOUNDS = (15.0, 20.0, 30.0)  # low < 15 <= normal < 20 <= elevated < 30 <= crisis
RULE_THRESHOLD = "fixed rule threshold (a constant of the method)"  # operation of a threshold (envelope.constant)


def vix_state_codes(levels) -> np.ndarray:
    """0..3 (low, normal, elevated, crisis) for each VIX level."""
    return np.searchsorted(np.asarray(VIX_BOUNDS), np.asarray(levels, dtype=float), side="right")


def vix_state(level: float) -> str:
    return VIX_STATES[int(vix_state_codes([level])[0])]


def counted(block, operation: str = "count of observations"):
    """`block` with each plain integer (a count a shared helper leaves unrounded) made a figure of the current
    scope, so it names the scope's series rather than falling back to every input of the module."""
    if isinstance(block, dict):
        return {k: counted(v, operation) for k, v in block.items()}
    if isinstance(block, int) and not isinstance(block, bool):
        return envelope.count(block, operation)
    return block


def named(block: dict, operations: dict[str, str]) -> dict:
    """`block` with the figures under these keys given their operation in the current scope (the figures a
    shared helper rounds without naming what they are)."""
    return {k: provenance.tag(v, operations[k]) if k in operations and isinstance(v, (int, float))
            and not isinstance(v, bool) else v for k, v in block.items()}


# what each figure of intel.modules._common.persistence is, for `named`
PERSISTENCE_OPS = {
    "next_day_persistence": "share of past days in this state followed by the same state the next session",
    "expected_duration_geometric_sessions": "1 / (1 - next-day persistence), sessions",
    "completed_runs": "count of completed past runs of this state",
    "mean_completed_run_sessions": "mean length of completed past runs of this state, sessions",
    "median_completed_run_sessions": "median length of completed past runs of this state, sessions",
}
