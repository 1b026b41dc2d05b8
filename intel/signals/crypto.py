"""crypto: bitcoin's trend and momentum, damped by its volatility and helped by dollar liquidity, as the bitcoin,
crypto_momentum, crypto_volatility and liquidity modules read them. Held a month."""
from __future__ import annotations

import numpy as np

from intel.signals.combine import latest, weighted
from intel.signals.features import above_average, pct_change, realized_vol, squash, standardized_change, trailing_rank
from intel.signals.panel import Panel
from intel.signals.registry import Strategy

MONTH = 21  # trading days
TREND_DAYS, MOMENTUM_DAYS, VOL_DAYS, VOL_RANK_DAYS = 200, 30, 30, 365  # bitcoin observations (calendar days)
LIQUIDITY_WEEKS, LIQUIDITY_WINDOW = 13, 104  # weekly observations
WEIGHTS = {"trend": 0.4, "momentum": 0.3, "liquidity": 0.3}
VOL_DAMPING = 0.5  # at its highest volatility of the past year, the score is halved


def components(panel: Panel) -> dict[str, np.ndarray]:
    liquidity = weighted({"balance_sheet": panel.known("WALCL", standardized_change(LIQUIDITY_WEEKS, LIQUIDITY_WINDOW)),
                          "m2": panel.known("WM2NS", standardized_change(LIQUIDITY_WEEKS, LIQUIDITY_WINDOW))},
                         {"balance_sheet": 1.0, "m2": 1.0}, min_present=1)
    return {"trend": squash(panel.known("CBBTCUSD", above_average(TREND_DAYS)), 0.25),
            "momentum": squash(panel.known("CBBTCUSD", pct_change(MOMENTUM_DAYS)), 0.2),
            "liquidity": squash(liquidity, 1.5),
            "vol_rank": panel.known("CBBTCUSD", trailing_rank(realized_vol(VOL_DAYS), VOL_RANK_DAYS))}


def rule(panel: Panel) -> dict[str, np.ndarray]:
    parts = components(panel)
    base = weighted(parts, WEIGHTS, min_present=2)
    return {"CBBTCUSD": base * (1 - VOL_DAMPING * parts["vol_rank"])}


def explain(panel: Panel) -> list[str]:
    trend = latest(panel.known("CBBTCUSD", above_average(TREND_DAYS))) * 100
    momentum = latest(panel.known("CBBTCUSD", pct_change(MOMENTUM_DAYS))) * 100
    rank = latest(panel.known("CBBTCUSD", trailing_rank(realized_vol(VOL_DAYS), VOL_RANK_DAYS)))
    walcl = latest(panel.known("WALCL", pct_change(LIQUIDITY_WEEKS))) * 100
    m2 = latest(panel.known("WM2NS", pct_change(LIQUIDITY_WEEKS))) * 100
    return [f"trend: bitcoin {trend:+.1f}% against its {TREND_DAYS}-day average (bitcoin)",
            f"momentum: {momentum:+.1f}% over {MOMENTUM_DAYS} days (crypto_momentum)",
            f"volatility: {VOL_DAYS}-day realized volatility at the {rank:.2f} rank of its past year "
            f"(crypto_volatility; scores damped by up to {VOL_DAMPING:.0%})",
            f"liquidity: Fed balance sheet {walcl:+.1f}% and M2 {m2:+.1f}% over {LIQUIDITY_WEEKS} weeks (liquidity)"]


STRATEGY = Strategy(
    name="crypto", description="Bitcoin trend, volatility and liquidity", horizon=MONTH, threshold=0.3,
    modules=("bitcoin", "crypto_momentum", "crypto_volatility", "liquidity"),
    inputs=("CBBTCUSD", "WALCL", "WM2NS"), instruments=("CBBTCUSD",), rule=rule, explain=explain)
