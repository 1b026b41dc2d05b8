"""Every strategy, listed here rather than registered on import (as OpenBB lists its fetchers): adding one is its
own file and one line below. In this order the trading signals are built; composite last, as it combines the
others."""
from __future__ import annotations

from intel.signals import composite, convergence, crypto, fed_macro
from intel.signals.registry import Strategy

LISTED = (convergence.STRATEGY, crypto.STRATEGY, fed_macro.STRATEGY, composite.STRATEGY)
STRATEGIES: dict[str, Strategy] = {s.name: s for s in LISTED}
if len(STRATEGIES) != len(LISTED):
    raise ValueError(f"two strategies share a name: {[s.name for s in LISTED]}")


def strategies() -> dict[str, Strategy]:
    return STRATEGIES
