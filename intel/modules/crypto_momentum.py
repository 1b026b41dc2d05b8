"""crypto_momentum: multi-horizon momentum and trend signals for bitcoin and ether: returns over 7 to 365
calendar days, 12-1 momentum, volatility-scaled horizon scores combined into a -100..+100 momentum score,
the 90-day return's percentile in its own history, RSI, MACD and the trend against moving averages."""
from __future__ import annotations

from datetime import timedelta

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, not_computed, trend_profile
from intel.modules._crypto import COINS, DAYS_PER_YEAR, covered_coins, trend_word
from intel.registry import Module, register

NAME = "crypto_momentum"
INPUTS = tuple(COINS)
HORIZONS = (7, 30, 90, 182, 365)  # calendar days (crypto trades every day)
SCORE_HORIZONS = (30, 90, 182, 365)  # the week is too noisy to score
CAP = 2.0  # a horizon's volatility-scaled return counts at most +/- 2 standard deviations
BULL, BEAR = 30.0, -30.0
WARMUP = 600


def coin_block(frames: Frames, series_id: str) -> dict:
    """One coin's momentum figures (called in a scope of its series: covered_coins); returns and 12-1
    momentum come from their two named closes."""
    frame = frames.get(series_id)
    close = frame["value"].to_numpy()
    last = float(close[-1])
    _, rets = indicators.dated_changes(frame)
    year_rets = rets[-DAYS_PER_YEAR:]
    daily_vol = float(np.std(year_rets, ddof=1)) if len(year_rets) >= 60 else None
    out: dict = {"price_usd": envelope.level(frames, series_id, 2, op="latest close"),
                 "date": frame["date"][-1].isoformat()}
    scores, positive, counted = [], 0, 0
    horizon_scores = {}
    for h in HORIZONS:
        base_obs = envelope.obs_on_or_before(frame, series_id, frame["date"][-1] - timedelta(days=h))
        base = base_obs[2] if base_obs else None
        out[f"return_{h}d_pct"] = (envelope.pct_change(envelope.last_obs(frame, series_id), base_obs, 2)
                                   if base else None)
        if base:
            counted += 1
            positive += last > base
        if h in SCORE_HORIZONS:
            # log return over the horizon in units of the 1-year daily volatility scaled to the horizon
            t = np.log(last / base) / (daily_vol * np.sqrt(h)) if base and daily_vol else None
            horizon_scores[f"{h}d"] = envelope.rnd(t, 2,
                                                   f"log return over {h} days / (sample std of the last 365 daily "
                                                   f"log returns x sqrt {h})")
            if t is not None and np.isfinite(t):
                scores.append(float(np.clip(t, -CAP, CAP)))
    out["vol_scaled_return_by_horizon"] = horizon_scores
    out["positive_horizons"] = envelope.count(positive, "count of horizons with a positive return")
    out["horizons_available"] = envelope.count(counted, "count of horizons the history covers")
    out["momentum_score"] = envelope.rnd(np.mean(scores) / CAP * 100, 1,
                                         "mean of the vol-scaled horizon returns capped "
                                         "at +/-2, scaled to -100..+100") if scores else None
    base_1y = envelope.obs_on_or_before(frame, series_id, frame["date"][-1] - timedelta(days=365))
    base_1m = envelope.obs_on_or_before(frame, series_id, frame["date"][-1] - timedelta(days=30))
    out["momentum_12_1_pct"] = (envelope.pct_change(base_1m, base_1y, 2, op="percent change from the close a year "
                                                    "before the last to the close a month before it")
                                if base_1y and base_1m and base_1y[2] and base_1m[2] else None)
    # the 90-day log return against every rolling 90-observation log return in the history
    if len(close) > 90 + 180:
        r90 = np.log(close[90:] / close[:-90])
        out["return_90d_percentile_history"] = envelope.rnd(indicators.percentile_rank(r90, r90[-1]), 1,
                                                            "percentile rank of the 90-observation log return among "
                                                            "all rolling ones in the history")
    else:
        out["return_90d_percentile_history"] = None
    # RSI and MACD on the last 600 closes: their recursive smoothing forgets older data (weights below
    # 1e-19), and the Python-level recursions over a decade of days would cost tens of milliseconds
    recent = close[-WARMUP:]
    out["rsi_14d"] = envelope.rnd(indicators.rsi(recent, 14)[-1], 1, "Wilder's 14-day RSI of the daily closes")
    line, sig, hist = indicators.macd(recent)
    out["macd_histogram_pct_of_price"] = envelope.rnd(hist[-1] / last * 100, 3, "MACD (12/26/9) histogram over the "
                                                                                "last close, percent")
    crossed = np.flatnonzero(np.isfinite(hist[1:]) & np.isfinite(hist[:-1]) & (np.sign(hist[1:]) != np.sign(hist[:-1])))
    out["macd_state"] = None if not np.isfinite(hist[-1]) else ("above_signal" if hist[-1] > 0 else "below_signal")
    out["days_since_macd_cross"] = envelope.count(len(hist) - 2 - crossed[-1] if len(crossed) else None,
                                                  "observations since the MACD histogram last changed sign")
    trend = trend_profile(frame)
    out.update({k: trend[k] for k in ("distance_to_sma50_pct", "distance_to_sma200_pct", "trend_state")})
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    coins, unavailable = covered_coins(
        frames, coin_block, needs=("momentum_score", "fewer than 60 daily returns or no horizon covered"))
    data: dict = dict(coins)
    scores = [c["momentum_score"] for c in coins.values() if c["momentum_score"] is not None]
    with provenance.about(frames, *INPUTS):
        data["combined_momentum_score"] = envelope.rnd(np.mean(scores), 1,
                                                       "mean of the covered coins' momentum scores") \
            if scores else None
        data["coins_scored"] = envelope.count(len(scores), "count of coins with a momentum score")

    signals = []
    for symbol, c in coins.items():
        sid, score = c["series"], c["momentum_score"]
        if score is None:
            signals.append(envelope.signal(f"{symbol.lower()}_momentum", "neutral",
                                           envelope.degrade(0.25, sources, [sid]), "low",
                                           f"{symbol} history too short to score momentum"))
        else:
            direction = "bullish" if score >= BULL else "bearish" if score <= BEAR else "neutral"
            urgency = "medium" if abs(score) >= 60 else "low"
            agree = c["positive_horizons"] / c["horizons_available"] if c["horizons_available"] else 0.5
            consistency = agree if score > 0 else 1 - agree  # horizons pointing the same way as the score
            conf = envelope.degrade(0.35 + min(0.3, abs(score) / 200) + 0.25 * consistency, sources, [sid])
            signals.append(envelope.signal(f"{symbol.lower()}_momentum", direction, conf, urgency,
                                           f"{symbol} momentum score {score}, {c['positive_horizons']} of "
                                           f"{c['horizons_available']} horizons positive, "
                                           f"{trend_word(c['trend_state'])}"))
        rsi = c["rsi_14d"]
        if rsi is not None and (rsi >= 75 or rsi <= 25):
            hot = rsi >= 75
            signals.append(envelope.signal(f"{symbol.lower()}_rsi_extreme", "bearish" if hot else "bullish",
                                           envelope.degrade(0.4, sources, [sid]), "medium",
                                           f"{symbol} 14-day RSI at {rsi}: {'overbought' if hot else 'oversold'}, "
                                           f"a short-term reversal risk"))
        if c["days_since_macd_cross"] is not None and c["days_since_macd_cross"] <= 2:
            up = c["macd_state"] == "above_signal"
            signals.append(envelope.signal(f"{symbol.lower()}_macd_cross", "bullish" if up else "bearish",
                                           envelope.degrade(0.4, sources, [sid]), "medium",
                                           f"{symbol} MACD crossed {'above' if up else 'below'} its signal line "
                                           f"{c['days_since_macd_cross']} days ago"))

    parts = [f"{s}: momentum score {fig(c['momentum_score'])}, 30-day return {fig(c['return_30d_pct'], '%')}, "
             f"1-year return {fig(c['return_365d_pct'], '%')}, {c['positive_horizons']} of "
             f"{c['horizons_available']} "
             f"horizons positive, RSI {fig(c['rsi_14d'])}, {trend_word(c['trend_state'])}" for s, c in coins.items()]
    summary = "Crypto momentum. " + "; ".join(parts) + "."
    if data["combined_momentum_score"] is not None:
        summary += (f" Combined score across the covered coins: {data['combined_momentum_score']} (positive for upward "
                    f"momentum, bounded by plus and minus one hundred).")
    summary += not_computed(unavailable)
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("bitcoin", "bitcoin's price, trend and drawdown"),
                              ("ethereum", "ether and the ETH/BTC ratio"),
                              ("crypto_market", "the covered coins side by side"),
                              ("crypto_risk", "whether the risk regime supports the momentum"),
                              ("asset_class_momentum", "crypto momentum against other asset classes")),
                          methodology="Returns use the close on or before each calendar horizon. Each scored horizon "
                                      "(30, 90, 182, 365 days) gives its log return divided by the 1-year standard "
                                      "deviation of daily log returns times the square root of the horizon, capped at "
                                      "+/-2; the momentum score is their mean scaled to -100..+100 (bullish at +30 or "
                                      "more, bearish at -30 or less). 12-1 momentum is the return from a year ago to a "
                                      "month ago. RSI is Wilder's 14-day; MACD is 12/26/9 on daily closes.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="crypto", tier="S", inputs=INPUTS,
                description="Multi-horizon crypto momentum score, 12-1 momentum, RSI, MACD and trend signals",
                compute=compute, lookback_days=3700))
