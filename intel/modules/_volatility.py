"""Helpers shared by the volatility modules (vix_term_structure, vol_of_vol, volatility_regime): the VIX
states. Registers nothing (underscore file)."""
from __future__ import annotations

import numpy as np

# VIX states used by volatility_regime (and quoted by the others): the lower bound of each state
VIX_STATES = ("low", "normal", "elevated", "crisis")
VIX_BOUNDS = (15.0, 20.0, 30.0)  # low < 15 <= normal < 20 <= elevated < 30 <= crisis


def vix_state_codes(levels) -> np.ndarray:
    """0..3 (low, normal, elevated, crisis) for each VIX level."""
    return np.searchsorted(np.asarray(VIX_BOUNDS), np.asarray(levels, dtype=float), side="right")


def vix_state(level: float) -> str:
    return VIX_STATES[int(vix_state_codes([level])[0])]
