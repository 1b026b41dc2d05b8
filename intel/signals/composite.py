"""composite: the weighted combination of the other strategies' scores per instrument, over those that score it
that day (bitcoin: crypto and convergence; the dollar: fed_macro and convergence). The weights are fixed, not
fitted, so the back-test has nothing tuned on the history it measures. Held a month."""
from __future__ import annotations

import numpy as np

from intel.signals import convergence, crypto, fed_macro
from intel.signals.combine import latest, weighted
from intel.signals.panel import Panel
from intel.signals.registry import Strategy

MONTH = 21
# the broad, several-indicator reading counts most; the bitcoin-only rule least
WEIGHTS = {"fed_macro": 0.35, "convergence": 0.4, "crypto": 0.25}
PARTS = {"fed_macro": fed_macro.STRATEGY, "convergence": convergence.STRATEGY, "crypto": crypto.STRATEGY}
INSTRUMENTS = tuple(dict.fromkeys(i for s in PARTS.values() for i in s.instruments))


def part_scores(panel: Panel) -> dict[str, dict[str, np.ndarray]]:
    return {name: strategy.rule(panel) for name, strategy in PARTS.items()}


def rule(panel: Panel) -> dict[str, np.ndarray]:
    parts = part_scores(panel)
    out = {}
    for inst in INSTRUMENTS:
        scoring = {name: scores[inst] for name, scores in parts.items() if inst in scores}
        out[inst] = weighted(scoring, {name: WEIGHTS[name] for name in scoring}, min_present=1)
    return out


def explain(panel: Panel) -> list[str]:
    parts = part_scores(panel)
    return [f"{name} (weight {WEIGHTS[name]}): " + ", ".join(f"{inst} {latest(s):+.2f}" for inst, s in scores.items())
            for name, scores in parts.items()]


STRATEGY = Strategy(
    name="composite", description="The weighted combination of fed_macro, convergence and crypto",
    horizon=MONTH, threshold=0.3, modules=tuple(dict.fromkeys(m for s in PARTS.values() for m in s.modules)),
    inputs=tuple(dict.fromkeys(i for s in PARTS.values() for i in s.inputs)), instruments=INSTRUMENTS,
    rule=rule, explain=explain)
