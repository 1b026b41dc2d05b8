"""fed_macro: the policy path, the curve, inflation and growth momentum, as the fed_policy, yield_curve,
inflation and growth modules read them. Each component is scored in (-1, 1), positive meaning easier policy
or a friendlier macro backdrop; each instrument weighs them by how it responds (bonds like slower growth,
equities do not). Held a quarter: the macro backdrop moves slowly."""
from __future__ import annotations

import numpy as np

from intel.signals.combine import latest, weighted
from intel.signals.features import change, squash, standardized_change
from intel.signals.panel import Panel
from intel.signals.registry import Strategy

QUARTER = 63  # trading days
YEAR = 252
# instrument -> component -> weight (sign: the direction the instrument responds in)
EXPOSURES = {
    "SP500": {"policy": 1.0, "curve": 0.5, "inflation": 1.0, "growth": 1.0},
    "NASDAQCOM": {"policy": 1.0, "curve": 0.5, "inflation": 1.0, "growth": 1.0},
    "DGS10": {"policy": 1.0, "inflation": 1.0, "growth": -1.0},
    "BAMLH0A0HYM2": {"policy": 1.0, "curve": 0.5, "growth": 1.0},
    "DTWEXBGS": {"policy": -1.0, "growth": 0.5},
    "DCOILWTICO": {"growth": 1.0, "inflation": -1.0},
}


def core_inflation_acceleration(values: np.ndarray) -> np.ndarray:
    """Core CPI's 3-month annualized rate minus its 12-month rate, in percentage points (monthly index)."""
    out = np.full(len(values), np.nan)
    if len(values) > 12:
        three = (values[12:] / values[9:-3]) ** 4 - 1
        twelve = values[12:] / values[:-12] - 1
        out[12:] = (three - twelve) * 100
    return out


def three_month_average(values: np.ndarray) -> np.ndarray:
    out = np.full(len(values), np.nan)
    if len(values) >= 3:
        out[2:] = np.convolve(values, np.ones(3) / 3, mode="valid")
    return out


def components(panel: Panel) -> dict[str, np.ndarray]:
    return {
        # a 2-year yield falling fast against its own history: the market pricing cuts
        "policy": -squash(panel.known("DGS2", standardized_change(QUARTER, YEAR)), 1.5),
        # a positively sloped curve leaves room to grow; an inverted one has preceded recessions
        "curve": squash(panel.known("T10Y2Y"), 0.5),
        # core inflation decelerating (3-month annualized below 12-month) frees the Fed to ease
        "inflation": -squash(panel.known("CPILFESL", core_inflation_acceleration), 1.0),
        # the Chicago Fed activity index's 3-month average: above 0 is growth above trend
        "growth": squash(panel.known("CFNAI", three_month_average), 0.3),
    }


def rule(panel: Panel) -> dict[str, np.ndarray]:
    parts = components(panel)
    return {inst: weighted(parts, weights, min_present=2) for inst, weights in EXPOSURES.items()}


def explain(panel: Panel) -> list[str]:
    dgs2 = latest(panel.known("DGS2", change(QUARTER)))
    slope = latest(panel.known("T10Y2Y"))
    accel = latest(panel.known("CPILFESL", core_inflation_acceleration))
    cfnai = latest(panel.known("CFNAI", three_month_average))
    return [f"policy path: the 2-year yield moved {dgs2:+.2f} points over {QUARTER} trading days (fed_policy)",
            f"curve: 10-year minus 2-year at {slope:+.2f} points (yield_curve)",
            f"inflation momentum: core CPI 3-month annualized minus 12-month {accel:+.2f} points (inflation)",
            f"growth momentum: CFNAI 3-month average {cfnai:+.2f} (growth)"]


STRATEGY = Strategy(
    name="fed_macro", description="Policy path, curve, inflation and growth momentum",
    horizon=QUARTER, threshold=0.3, modules=("fed_policy", "yield_curve", "inflation", "growth"),
    inputs=("DGS2", "T10Y2Y", "CPILFESL", "CFNAI"), instruments=tuple(EXPOSURES), rule=rule, explain=explain)
