"""convergence: six independent readings of risk appetite, each a vote for risk-on (+1) or risk-off (-1), as the
equity_momentum, credit_spreads, vix, yield_curve, dollar_strength and financial_conditions modules read them.
The rule fires only when they agree: the share voting one way, net of the other, reaches the threshold (5 of 6,
or 4 of 4 when some are missing). Risk assets follow the vote, Treasuries and the dollar take the other side.
Held a month."""
from __future__ import annotations

import numpy as np

from intel.signals.combine import latest
from intel.signals.features import above_average, change, pct_change, trailing_rank
from intel.signals.panel import Panel
from intel.signals.registry import Strategy

MONTH, QUARTER, YEAR = 21, 63, 252  # trading days (observations of the daily series)
TREND_DAYS = 200
MIN_VOTES = 4  # fewer readings than this on a day: no decision
EXPOSURES = {"SP500": 1.0, "NASDAQCOM": 1.0, "BAMLH0A0HYM2": 1.0, "DCOILWTICO": 1.0, "CBBTCUSD": 1.0,
             "DGS10": -1.0, "DTWEXBGS": -1.0}
VOTERS = {  # vote -> the module whose logic it mirrors
    "equity_trend": "equity_momentum", "credit": "credit_spreads", "volatility": "vix", "curve": "yield_curve",
    "dollar": "dollar_strength", "financial_conditions": "financial_conditions"}


def votes(panel: Panel) -> dict[str, np.ndarray]:
    return {
        "equity_trend": np.sign(panel.known("SP500", above_average(TREND_DAYS))),  # above its 200-day average
        "credit": -np.sign(panel.known("BAMLH0A0HYM2", change(QUARTER))),  # high-yield spread tightening
        "volatility": np.sign(0.5 - panel.known("VIXCLS", trailing_rank(None, YEAR))),  # VIX below its year's median
        "curve": np.sign(panel.known("T10Y2Y")),  # not inverted
        "dollar": -np.sign(panel.known("DTWEXBGS", pct_change(QUARTER))),  # a weakening dollar eases conditions
        "financial_conditions": -np.sign(panel.known("ANFCI")),  # looser than average (negative index)
    }


def agreement(panel: Panel) -> np.ndarray:
    """The mean vote (+1 all risk-on, -1 all risk-off) on days with at least MIN_VOTES readings."""
    stack = np.vstack(list(votes(panel).values()))
    present = np.isfinite(stack)
    total = np.where(present, stack, 0.0).sum(axis=0)
    count = present.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count >= MIN_VOTES, total / count, np.nan)


def rule(panel: Panel) -> dict[str, np.ndarray]:
    agree = agreement(panel)
    return {inst: exposure * agree for inst, exposure in EXPOSURES.items()}


def explain(panel: Panel) -> list[str]:
    words = {1.0: "risk-on", -1.0: "risk-off", 0.0: "neutral"}
    return [f"{name}: {words.get(latest(v), 'no reading')} ({VOTERS[name]})" for name, v in votes(panel).items()]


STRATEGY = Strategy(
    name="convergence", description="Several independent indicators agreeing on risk appetite",
    horizon=MONTH, threshold=0.6, modules=tuple(VOTERS.values()),
    inputs=("SP500", "BAMLH0A0HYM2", "VIXCLS", "T10Y2Y", "DTWEXBGS", "ANFCI"), instruments=tuple(EXPOSURES),
    rule=rule, explain=explain)
