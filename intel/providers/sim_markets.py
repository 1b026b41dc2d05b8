"""Daily simulated markets: the regime chain and the common factors every price hangs on.

The regime chain (calm, normal, stress, crisis) sets the equity factor's drift and volatility; the
equity shock of each day then feeds volatility (with a leverage effect), credit spreads, havens, oil,
copper, sectors and crypto, so a crash shows up in all of them on the same days.
"""
from __future__ import annotations

from bisect import bisect_right

import numpy as np

from intel.catalog import SECTORS
from intel.providers.sim_noise import Draws, ar1, smooth_toward

REGIMES = ("calm", "normal", "stress", "crisis")
# Daily transition probabilities: expected stays of about 170, 120, 50 and 33 business days; in the
# long run about 31% calm, 47% normal, 19% stress, 3% crisis (bench/calibration.py: VIX>25 spells cover
# about a quarter of real days since 2005).
TRANSITIONS = np.array([
    [0.9940, 0.0050, 0.0010, 0.0000],
    [0.0035, 0.9915, 0.0045, 0.0005],
    [0.0010, 0.0140, 0.9800, 0.0050],
    [0.0000, 0.0040, 0.0260, 0.9700],
])
SEVERITY = np.array([0.0, 0.3, 1.0, 2.5])  # how hard each regime presses on the real economy
EQUITY_DRIFT = np.array([0.0008, 0.0006, -0.0005, -0.0020])  # daily log drift, about 6%/yr on average
EQUITY_VOL = np.array([0.0055, 0.0105, 0.0175, 0.0300])  # daily vol before clustering
VOL_SCALE = np.array([0.8, 1.0, 1.4, 2.1])  # how other markets' volatility scales with the regime
# log-vol clustering: persistence, noise, and the leverage effect (a down day raises tomorrow's vol)
LOGVOL_PHI, LOGVOL_NOISE, LEVERAGE = 0.97, 0.03, 0.06
LOGVOL_CAP = 0.6  # clustering can at most multiply the regime's vol by exp(cap): no runaway feedback
EQUITY_TAIL_DOF = 3.5  # Student-t degrees of freedom of the daily equity shock
# Crash days on top of the fat tails (Brexit, Feb 2018, Aug 2024, April 2025 happened outside any crisis):
# a daily chance by regime, and a size in units of the day's vol, JUMP_SIZE[0] + JUMP_SIZE[1] * |N(0, 1)|.
JUMP_CHANCE = np.array([0.001, 0.003, 0.006, 0.010])
JUMP_SIZE = (3.0, 2.0)
SHOCK_CAP = 8.0  # t draws beyond 8 sd are sampling freaks, not markets
CIRCUIT_BREAKER = np.log(0.8)  # the NYSE's level-3 halt closes the market after a 20% fall
TREND_GROWTH, TREND_PULL = 0.00026, 0.003  # daily log growth of earnings, and the index's pull toward it
# VIX = VIX_RATIO * forward vol (annualized, points) + VIX_PREMIUM: implied vol above realized
VIX_RATIO, VIX_PREMIUM = 1.03, 2.5


def regime_path(draws: Draws, days: np.ndarray) -> np.ndarray:
    """Markov chain over REGIMES on business days, starting from `normal`."""
    cumulative = [np.cumsum(row).tolist() for row in TRANSITIONS]
    state, out = 1, []
    for u in draws.uniform("regime", days).tolist():
        state = min(bisect_right(cumulative[state], u), 3)
        out.append(state)
    return np.asarray(out, dtype=np.int64)


def equity_factor(draws: Draws, days: np.ndarray, regime: np.ndarray) -> dict[str, np.ndarray]:
    """Log returns of the broad index, its daily vol, and the implied-vol indices built on that vol."""
    jumps = draws.uniform("equity.jump", days) < JUMP_CHANCE[regime]
    jump_size = JUMP_SIZE[0] + JUMP_SIZE[1] * np.abs(draws.normal("equity.jump_size", days))
    # one standardized shock, crash days included, so vol, credit, rates and havens all feel them
    shock = np.clip(draws.fat("equity", days, EQUITY_TAIL_DOF), -SHOCK_CAP, SHOCK_CAP) - np.where(jumps, jump_size, 0.0)
    base = smooth_toward(EQUITY_VOL[regime], 0.3, EQUITY_VOL[1])  # vol ramps over a few days
    # log-vol clustering with a leverage effect: a down day raises tomorrow's vol
    log_vol = ar1(LOGVOL_PHI, LOGVOL_NOISE * draws.normal("equity.logvol", days) - LEVERAGE * shock)
    log_vol = np.minimum(log_vol, LOGVOL_CAP)
    prior_log_vol = np.concatenate([[0.0], log_vol[:-1]])
    vol = base * np.exp(prior_log_vol)
    # the index's log level drifts by regime and is pulled slowly toward a 6.5%-a-year earnings trend,
    # so lucky or unlucky regime paths do not compound into absurd levels
    steps = np.maximum(EQUITY_DRIFT[regime] + vol * shock, CIRCUIT_BREAKER).tolist()
    x, trend, levels = 0.0, 0.0, []
    for step in steps:
        trend += TREND_GROWTH
        x += step + TREND_PULL * (trend - x)
        levels.append(x)
    levels = np.asarray(levels)
    returns = np.diff(levels, prepend=0.0)
    forward_vol = base * np.exp(log_vol)  # what the market expects at today's close
    noise = ar1(0.9, 0.35 * draws.normal("vix", days))
    vix = np.clip(VIX_RATIO * np.sqrt(252) * 100 * forward_vol + VIX_PREMIUM + noise, 9.0, 80.0)
    # VIX3M sits above VIX in calm markets and below it in a panic
    vix3m = np.clip(vix + 1.2 + 0.15 * (19.0 - vix) + ar1(0.9, 0.2 * draws.normal("vix3m", days)), 10.0, 70.0)
    # `surprise` is the unexpected part of the return: what other markets react to
    return {"shock": shock, "returns": returns, "surprise": vol * shock, "vol": vol, "vix": vix, "vix3m": vix3m}


def index_levels(draws: Draws, days: np.ndarray, returns: np.ndarray) -> dict[str, np.ndarray]:
    sp500 = 1200.0 * np.exp(np.cumsum(returns))
    tech = 1.15 * returns + 0.00008 + 0.005 * draws.normal("nasdaq", days)
    return {"SP500": sp500, "NASDAQCOM": 2100.0 * np.exp(np.cumsum(tech))}


# beta to the index, loading on oil returns, on daily 10y yield changes (in percent), idiosyncratic vol,
# level on the first simulated day (near the real ETFs' adjusted closes in 2005)
SECTOR_PARAMS: dict[str, tuple[float, float, float, float, float]] = {
    "XLB": (1.10, 0.10, 0.0, 0.0070, 11.5), "XLC": (1.00, 0.00, 0.0, 0.0070, 20.0),
    "XLE": (1.05, 0.35, 0.0, 0.0100, 13.3), "XLF": (1.25, 0.00, 0.08, 0.0080, 19.6),
    "XLI": (1.10, 0.00, 0.0, 0.0050, 24.4), "XLK": (1.15, 0.00, 0.0, 0.0060, 8.2),
    "XLP": (0.60, 0.00, -0.04, 0.0050, 17.1), "XLRE": (0.95, 0.00, -0.12, 0.0080, 15.0),
    "XLU": (0.50, 0.00, -0.10, 0.0070, 8.8), "XLV": (0.70, 0.00, 0.0, 0.0060, 25.2),
    "XLY": (1.10, -0.05, 0.0, 0.0060, 14.1),
}


def sectors(draws: Draws, days: np.ndarray, returns: np.ndarray, oil_returns: np.ndarray,
            dgs10_changes: np.ndarray) -> dict[str, np.ndarray]:
    """Sector ETFs: a beta to the index plus their own drivers; drift set so they grow with the index."""
    out = {}
    for ticker in SECTORS:
        beta, oil, rates, idio, first = SECTOR_PARAMS[ticker]
        drift = (1 - beta) * 0.0003
        daily = drift + beta * returns + oil * oil_returns + rates * dgs10_changes
        daily = daily + idio * draws.normal(f"sector.{ticker}", days)
        out[ticker] = first * np.exp(np.cumsum(daily))
    return out


def credit(draws: Draws, days: np.ndarray, regime: np.ndarray, shock: np.ndarray) -> dict[str, np.ndarray]:
    """HY spread in log terms, pulled toward a regime level and widening on equity down days."""
    level = np.log(np.array([3.1, 4.2, 6.8, 13.0]))[regime]
    target = smooth_toward(level, 0.08, level[0])
    speed = np.array([0.015, 0.015, 0.025, 0.040])[regime].tolist()
    vol = np.array([0.010, 0.014, 0.022, 0.035])[regime]
    kicks = (vol * (-0.6 * shock + 0.8 * draws.normal("credit.hy", days))).tolist()
    x, path = float(level[0]), []
    for k, t, kick in zip(speed, target.tolist(), kicks):
        x += k * (t - x) + kick
        path.append(x)
    hy = np.exp(np.asarray(path))
    ig = np.maximum(0.24 * hy + 0.25 + ar1(0.97, 0.01 * draws.normal("credit.ig", days)), 0.4)
    return {"BAMLH0A0HYM2": hy, "BAMLC0A0CM": ig}


def commodities(draws: Draws, days: np.ndarray, regime: np.ndarray, surprise: np.ndarray) -> dict[str, np.ndarray]:
    """WTI and copper: equity beta, regime vol, demand collapse in a crisis, slow pull to a wandering anchor."""
    scale = VOL_SCALE[regime]
    crisis_drag = np.where(regime == 3, -0.004, 0.0)
    out = {}
    for name, first, anchor, beta, vol in (("oil", 43.0, 70.0, 0.4, 0.019), ("copper", 3200.0, 7000.0, 0.6, 0.014)):
        wander = np.log(anchor) + ar1(0.999, 0.01 * draws.normal(f"{name}.anchor", days))
        kicks = (beta * surprise + crisis_drag + vol * scale * draws.normal(name, days)).tolist()
        x, path = np.log(first), []
        for a, kick in zip(wander.tolist(), kicks):
            x += 0.003 * (a - x) + kick
            path.append(x)
        out[name] = np.exp(np.asarray(path))
    out["brent"] = out["oil"] * np.exp(0.03 + ar1(0.98, 0.006 * draws.normal("brent.spread", days)))
    return out


def gold(draws: Draws, days: np.ndarray, regime: np.ndarray, surprise: np.ndarray) -> np.ndarray:
    """Gold in USD per troy ounce on business days: a haven (a small negative equity beta, bid in a crisis),
    about 1% daily vol scaled by the regime, drifting up about 7% a year from 430 in 2005."""
    haven_bid = np.where(regime == 3, 0.0015, 0.0)
    kicks = (0.00027 - 0.1 * surprise + haven_bid + 0.010 * VOL_SCALE[regime] * draws.fat("gold", days))
    return 430.0 * np.exp(np.cumsum(kicks))


# USD per foreign unit (foreign strength): first level, long-run anchor, loading on equity returns
# (positive = risk currency, negative = haven), loading on the common dollar shock, own daily vol
FX_PARAMS: dict[str, tuple[float, float, float, float, float]] = {
    "EUR": (1.35, 1.20, 0.10, 1.0, 0.0030), "GBP": (1.88, 1.45, 0.12, 0.8, 0.0035),
    "AUD": (0.77, 0.78, 0.35, 0.8, 0.0045), "JPY": (1 / 104, 1 / 115, -0.25, 0.6, 0.0035),
    "CHF": (1 / 1.15, 1 / 1.0, -0.12, 0.9, 0.0035), "CAD": (1 / 1.22, 1 / 1.20, 0.15, 0.5, 0.0030),
    "CNY": (1 / 8.10, 1 / 6.80, 0.02, 0.15, 0.0010), "MXN": (1 / 11.2, 1 / 16.0, 0.40, 0.6, 0.0050),
}
FX_SERIES = {"EUR": ("DEXUSEU", False), "GBP": ("DEXUSUK", False), "AUD": ("DEXUSAL", False),
             "JPY": ("DEXJPUS", True), "CHF": ("DEXSZUS", True), "CAD": ("DEXCAUS", True),
             "CNY": ("DEXCHUS", True), "MXN": ("DEXMXUS", True)}  # True: quoted per US dollar
DOLLAR_WEIGHTS = {"EUR": 0.19, "CNY": 0.16, "MXN": 0.13, "CAD": 0.13, "JPY": 0.06, "GBP": 0.05,
                  "CHF": 0.03, "AUD": 0.02}


def fx(draws: Draws, days: np.ndarray, regime: np.ndarray, surprise: np.ndarray,
       oil_returns: np.ndarray) -> dict[str, np.ndarray]:
    scale = VOL_SCALE[regime]
    dollar = 0.0035 * scale * draws.normal("fx.dollar", days)
    out, strength = {}, np.zeros(len(days))
    for ccy, (first, anchor, risk, dollar_load, vol) in FX_PARAMS.items():
        kicks = risk * surprise - dollar_load * dollar + vol * scale * draws.normal(f"fx.{ccy}", days)
        if ccy == "CAD":
            kicks = kicks + 0.06 * oil_returns
        x, a, path = np.log(first), np.log(anchor), []
        for kick in kicks.tolist():
            x += 0.0012 * (a - x) + kick
            path.append(x)
        log_level = np.asarray(path)
        strength += DOLLAR_WEIGHTS[ccy] * (log_level - np.log(first))
        series_id, per_dollar = FX_SERIES[ccy]
        out[series_id] = np.exp(-log_level) if per_dollar else np.exp(log_level)
    out["DTWEXBGS"] = 101.0 * np.exp(-strength / sum(DOLLAR_WEIGHTS.values()))
    return out


HALVINGS = np.array(["2012-11-28", "2016-07-09", "2020-05-11", "2024-04-20", "2028-04-15"], dtype="datetime64[D]")


def crypto(draws: Draws, all_days: np.ndarray, business: np.ndarray, regime: np.ndarray,
           surprise: np.ndarray, btc_first: np.datetime64, eth_first: np.datetime64) -> dict[str, tuple]:
    """BTC and ETH every calendar day from their first listing: equity beta on trading days, a
    halving-cycle drift and fat tails. Returns {name: (dates, prices)}."""
    on_trading_day = np.zeros(len(all_days))
    on_trading_day[np.searchsorted(all_days, business)] = surprise
    # weekends keep the latest trading day's regime
    regime_daily = regime[np.clip(np.searchsorted(business, all_days, side="right") - 1, 0, len(regime) - 1)]
    since = all_days - HALVINGS[np.clip(np.searchsorted(HALVINGS, all_days, side="right") - 1, 0, None)]
    cycle = 0.004 * np.cos(2 * np.pi * (since.astype(np.int64) / 1460.0 - 0.3))  # bull run after a halving
    vol = np.array([0.025, 0.032, 0.045, 0.060])[regime_daily]
    btc_kicks = 0.0012 + cycle + 1.3 * on_trading_day + vol * draws.fat("crypto.btc", all_days)
    eth_kicks = 0.0003 + 1.2 * btc_kicks + 0.025 * draws.fat("crypto.eth", all_days)
    out = {}
    for name, kicks, first_day, first, growth in (("btc", btc_kicks, btc_first, 380.0, 0.0013),
                                                  ("eth", eth_kicks, eth_first, 12.0, 0.0014)):
        keep = all_days >= first_day
        days = all_days[keep]
        if not len(days):
            out[name] = (days, np.empty(0))
            continue
        trend = np.log(first) + growth * (days - days[0]).astype(np.int64)
        x, path = np.log(first), []
        for a, kick in zip(trend.tolist(), kicks[keep].tolist()):
            x += 0.002 * (a - x) + kick
            path.append(x)
        out[name] = (days, np.exp(np.asarray(path)))
    return out
