"""volatility_analysis (ticker): close-to-close realized volatility over several windows, Parkinson
range volatility and ATR% when the source has highs and lows, the 21-day volatility's percentile in the
ticker's own history, a volatility regime, and 1-sigma expected moves."""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import PRICE_DIGITS, bars_inputs, clean_bars, closed_at, fig, last_price
from intel.registry import Module, register

NAME = "volatility_analysis"
MIN_BARS = 30
WINDOWS = (10, 21, 63, 252)
MOVES = {"1d": 1, "1w": 5, "1m": 21}  # trading days
ANNUAL = 252


def rolling_vol(rets: np.ndarray, n: int) -> np.ndarray:
    """Annualized sample standard deviation (ddof 1) of each trailing window of n returns, in percent."""
    out = np.full(len(rets), np.nan)
    if len(rets) >= n:
        # sqrt(var x 252), the order this module has always used (equities' rolling_vol takes sqrt(var) x sqrt(252))
        out[n - 1:] = np.sqrt(indicators.rolling_var(rets, n) * ANNUAL) * 100
    return out


def regime_of(percentile: float | None) -> str:
    if percentile is None:
        return "unknown"
    return ("extreme" if percentile >= 95 else "elevated" if percentile >= 75 else "low" if percentile <= 25
            else "normal")


def _figures(frames: Frames, bars: pl.DataFrame, ticker: str, has_range: bool) -> tuple[dict, dict]:
    close = bars["close"].to_numpy()
    rets = np.diff(np.log(close))
    unavailable = {}
    realized = {}
    for n in WINDOWS:
        v = indicators.realized_vol(close, n)
        realized[f"realized_vol_{n}d_pct"] = envelope.rnd(v, 2)
        if v is None:
            unavailable[f"realized_vol_{n}d_pct"] = f"needs {n + 1} closes, have {len(close)}"
    down = rets[-63:][rets[-63:] < 0]
    realized["downside_vol_63d_pct"] = envelope.rnd(
        math.sqrt(np.sum(down ** 2) / len(rets[-63:]) * ANNUAL) * 100, 2)  # semi-deviation around zero
    history = rolling_vol(rets, 21)
    now21 = history[-1]
    pct = indicators.percentile_rank(history, now21)
    ratio = (realized["realized_vol_10d_pct"] / realized["realized_vol_63d_pct"]
             if realized["realized_vol_63d_pct"] else None)
    data = {"ticker": ticker, "date": bars["date"][-1].isoformat(), **last_price(frames, bars, ticker),
            "realized": realized,
            "vol_21d_percentile_own_history": envelope.rnd(pct, 1),
            "vol_21d_zscore_own_history": envelope.rnd(indicators.zscore(history[np.isfinite(history)], now21), 2),
            "vol_21d_history_bars": envelope.count(np.isfinite(history).sum(), "count of 21-day windows"),
            "vol_21d_min_own_history_pct": envelope.rnd(np.nanmin(history), 2),
            "vol_21d_max_own_history_pct": envelope.rnd(np.nanmax(history), 2),
            "vol_ratio_10d_to_63d": envelope.rnd(ratio, 2),
            "vol_trend": None if ratio is None else "expanding" if ratio > 1.2 else "contracting" if ratio < 0.8
            else "stable",
            "regime": regime_of(pct)}
    if ratio is None:
        unavailable["vol_ratio_10d_to_63d"] = "needs 64 closes"
    if has_range:
        high, low = bars["high"].to_numpy(), bars["low"].to_numpy()
        atr = indicators.atr(high, low, close, 14)
        hl = np.log(high[-21:] / low[-21:])
        parkinson = math.sqrt(np.mean(hl ** 2) / (4 * math.log(2)) * ANNUAL) * 100
        data["range_based"] = {"atr_14": envelope.rnd(atr[-1], PRICE_DIGITS, "14-day Wilder ATR"),
                               "atr_pct": envelope.rnd(atr[-1] / close[-1] * 100, 2,
                                                       "14-day ATR as a percent of the close"),
                               "parkinson_vol_21d_pct": envelope.rnd(parkinson, 2, "21-day Parkinson range volatility")}
    else:
        reason = "the source gives closes only (no highs and lows)"
        unavailable.update({"atr_14": reason, "atr_pct": reason, "parkinson_vol_21d_pct": reason})
    base = realized["realized_vol_21d_pct"]
    moves = {"basis": "1-sigma from the 21-day realized volatility (about 68% of outcomes under a normal law)"}
    for h, k in MOVES.items():
        pct_move = base * math.sqrt(k / ANNUAL)
        moves[f"move_{h}_pct"] = envelope.rnd(pct_move, 2, f"1-sigma move over {k} trading days, percent")
        moves[f"move_{h}_price"] = envelope.rnd(close[-1] * pct_move / 100, PRICE_DIGITS,
                                                f"1-sigma move over {k} trading days, in price")
        moves[f"range_{h}_low"] = envelope.rnd(close[-1] * math.exp(-pct_move / 100), PRICE_DIGITS,
                                               f"last price less a 1-sigma move over {k} trading days")
        moves[f"range_{h}_high"] = envelope.rnd(close[-1] * math.exp(pct_move / 100), PRICE_DIGITS,
                                                f"last price plus a 1-sigma move over {k} trading days")
    data["expected_move"] = moves
    return data, unavailable


def compute(frames: Frames, bars: pl.DataFrame, ticker: str) -> dict:
    bars, has_range, _ = clean_bars(bars, frames.now, NAME, ticker, MIN_BARS)
    sources = envelope.ticker_sources(frames, bars, ticker)
    stale = sources["series"][0]["stale"]
    with provenance.about_inputs(bars_inputs(bars, ticker)):
        data, unavailable = _figures(frames, bars, ticker, has_range)
    realized, base, moves = data["realized"], data["realized"]["realized_vol_21d_pct"], data["expected_move"]
    signals = _signals(data, has_range, stale)
    m = moves
    summary = (f"{closed_at(data, ticker)}. Realized volatility is "
               f"{base}% over the past month, {fig(realized['realized_vol_63d_pct'], '%')} over three months and "
               f"{fig(realized['realized_vol_252d_pct'], '%')} over a year; the monthly figure sits at the "
               f"{fig(data['vol_21d_percentile_own_history'])} "
               f"percentile of its own history ({data['regime']} regime, {data['vol_trend'] or 'trend unknown'}). "
               f"A 1-sigma move is {m['move_1d_pct']}% for a day and {m['move_1m_pct']}% for a month "
               f"({m['range_1m_low']} to {m['range_1m_high']}).")
    if has_range:
        summary += f" ATR is {data['range_based']['atr_pct']}% of the price."
    else:
        summary += " Highs and lows are missing, so ATR and range-based volatility are not computed."
    summary += " The last bar is stale." if stale else ""
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("technical_analysis", "trend and indicators for the same ticker"),
                              ("price_levels", "the levels an expected move would reach"),
                              ("momentum_score", "momentum scaled by this volatility"),
                              ("vix", "market-wide implied volatility"),
                              ("equity_volatility", "the index's realized volatility regime")),
                          methodology="Realized volatility: sample standard deviation (ddof 1) of daily log returns, "
                                      "annualized with 252 days. Percentile and z-score of today's 21-day volatility "
                                      "against every trailing 21-day window in the bars available; regime cut-offs at "
                                      "the 25th, 75th and 95th percentiles. Parkinson volatility from 21 daily "
                                      "high-low ranges; Wilder ATR (14). Expected move = close x vol x sqrt(days/252).",
                          unavailable=unavailable or None)


def _signals(d: dict, has_range: bool, stale: bool) -> list[dict]:
    scale = (1.0 if has_range else 0.85) * (0.6 if stale else 1.0)
    pct, regime, trend = d["vol_21d_percentile_own_history"], d["regime"], d["vol_trend"]
    if regime in ("extreme", "elevated"):
        direction = "bearish"
        urgency = "high" if regime == "extreme" and trend == "expanding" else "medium"
    elif regime == "low":
        direction, urgency = ("neutral", "medium") if trend == "expanding" else ("bullish", "low")
    else:
        direction, urgency = "neutral", "low"
    conf = (0.4 + abs((pct or 50) - 50) / 125) * scale
    return [envelope.signal("volatility_regime", direction, conf, urgency,
                            f"21-day volatility {d['realized']['realized_vol_21d_pct']}% at the {fig(pct)} percentile, "
                            f"{regime} and {trend or 'of unknown trend'}")]


register(Module(name=NAME, category="ticker", tier="S", inputs=(), takes_ticker=True,
                description="Realized vol, ATR%, vol percentile, expected move",
                compute=compute, lookback_days=1500))
