"""crypto_market: an overview of the coins the catalog covers (bitcoin and ether): price, returns, trend,
volatility and drawdown side by side, the ETH/BTC price ratio and relative performance, their return
correlation, an equal-weight two-coin basket and how many coins are trending up. There is no market-cap
or supply data, so no dominance figure is given: the ETH/BTC figure is a price ratio only."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.correlations import rolling_corr
from intel.frames import Frames
from intel.modules._common import fig, pct_word
from intel.modules._crypto import (
    COINS,
    aligned_changes,
    coin_profile,
    covered_coins,
    last_ratio,
    ratio_frame,
    trend_word,
)
from intel.registry import Module, register

NAME = "crypto_market"
INPUTS = tuple(COINS)  # CBBTCUSD, CBETHUSD
HORIZONS = ("1d", "1w", "1m", "3m", "ytd", "1y")
CORR_WINDOW = 90  # daily returns (calendar days) for the BTC-ETH correlation


def coin_block(frames: Frames, series_id: str) -> dict:
    """Called in a scope of the coin's series (covered_coins)."""
    p = coin_profile(frames, series_id)
    frame = frames.get(series_id)
    year = indicators.window(frame, 365)["value"].to_numpy()
    lo, hi = float(year.min()), float(year.max())
    block = {"price_usd": p["price_usd"], "date": p["date"]}
    block.update({f"change_{h}_pct": p[f"change_{h}_pct"] for h in HORIZONS})
    block.update({"trend_state": p["trend_state"], "distance_to_sma200_pct": p["distance_to_sma200_pct"],
                  "realized_vol_30d_pct": p["realized_vol_30d_pct"],
                  "drawdown_from_high_pct": p["drawdown_from_high_pct"], "high_date": p["high_date"],
                  # where the price sits between its 1-year low (0) and high (100)
                  "position_in_1y_range_pct": envelope.rnd((p["price_usd"] - lo) / (hi - lo) * 100, 1,
                                                           "position of the price between its 1-year low (0) and high "
                                                           "(100)") if hi > lo else None,
                  "history_start": p["history_start"]})
    return block


def cross_block(frames: Frames, coins: dict) -> dict:
    btc, eth = frames.get("CBBTCUSD"), frames.get("CBETHUSD")
    ratio = ratio_frame(eth, btc)
    out: dict = {"eth_btc_price_ratio": last_ratio(ratio, "CBETHUSD", "CBBTCUSD", 6,
                                                   "ETH/BTC price ratio on the last common date")
                 if ratio.height else None}
    with provenance.about(frames, *INPUTS):  # the rest rests on both coins' closes
        for h in ("1m", "3m", "1y"):
            b, e = coins["BTC"][f"change_{h}_pct"], coins["ETH"][f"change_{h}_pct"]
            # relative performance in percentage points, and the average of the two (equal weight at the start)
            out[f"eth_minus_btc_{h}_pp"] = envelope.rnd(e - b, 2, f"ETH change_{h}_pct minus BTC change_{h}_pct, "
                                                                  "percentage points") if None not in (b, e) else None
            out[f"equal_weight_basket_change_{h}_pct"] = envelope.rnd(
                (e + b) / 2, 2, f"mean of the BTC and ETH change_{h}_pct") if None not in (b, e) else None
        _, rb, re = aligned_changes(btc, "log", eth, "log")
        w = CORR_WINDOW
        out[f"correlation_{w}d"] = (envelope.rnd(rolling_corr(rb[-w:], re[-w:], w)[-1], 3,
                                                 f"correlation of the last {w} daily log returns of BTC and ETH on "
                                                 "common dates") if len(rb) >= w else None)
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    coins, unavailable = covered_coins(frames, coin_block, missing_key="coins.{}")
    with provenance.about(frames, *INPUTS):
        data: dict = {"coins_covered": ", ".join(coins),
                      "coins_count": envelope.count(len(coins), "count of covered coins"),
                      "coins": coins}
    if len(coins) == 2:
        data["cross"] = cross_block(frames, coins)
    else:
        unavailable["cross"] = "needs both BTC and ETH"
    unavailable["market_cap_dominance"] = ("no market capitalisation or coin supply data in the catalog: only the "
                                           "ETH/BTC price ratio is given, which is not a dominance measure")
    up = [s for s, c in coins.items() if c["trend_state"] == "uptrend"]
    down = [s for s, c in coins.items() if c["trend_state"] == "downtrend"]
    above = [s for s, c in coins.items() if (c["distance_to_sma200_pct"] or 0) > 0]
    with provenance.about(frames, *INPUTS):
        data.update({"coins_in_uptrend": envelope.count(len(up), "count of covered coins in uptrend"),
                     "coins_in_downtrend": envelope.count(len(down), "count of covered coins in downtrend"),
                     "coins_above_sma200": envelope.count(len(above),
                                                          "count of covered coins above their 200-day average")})
    leaders = {h: max((s for s in coins if coins[s][f"change_{h}_pct"] is not None),
                      key=lambda s: coins[s][f"change_{h}_pct"], default=None) for h in ("1m", "1y")}
    data.update({f"leader_{h}": v for h, v in leaders.items()})

    dists = [c["distance_to_sma200_pct"] for c in coins.values() if c["distance_to_sma200_pct"] is not None]
    mean_dist = float(np.mean(dists)) if dists else 0.0
    essential = [c["series"] for c in coins.values()]
    share = len(coins) / len(INPUTS)
    if up and len(up) == len(coins):
        direction, reason = "bullish", f"{len(up)} of {len(coins)} covered coins in uptrend"
    elif down and len(down) == len(coins):
        direction, reason = "bearish", f"{len(down)} of {len(coins)} covered coins in downtrend"
    else:
        direction, reason = "neutral", (f"mixed trends: {len(up)} coins in uptrend, {len(down)} in downtrend, "
                                        f"{len(above)} above the 200-day average")
    urgency = "medium" if direction == "bearish" and any((c["drawdown_from_high_pct"] or 0) <= -50
                                                         for c in coins.values()) else "low"
    confidence = envelope.degrade((0.45 + min(0.35, abs(mean_dist) / 60)) * (0.7 + 0.3 * share), sources, essential)
    signals = [envelope.signal("crypto_market_trend", direction, confidence, urgency, reason)]
    cross = data.get("cross")
    if cross and cross["eth_minus_btc_3m_pp"] is not None and abs(cross["eth_minus_btc_3m_pp"]) >= 10:
        lead = cross["eth_minus_btc_3m_pp"] > 0
        # ether is the higher-beta coin: its lead tends to go with broader crypto risk appetite
        signals.append(envelope.signal("crypto_risk_appetite", "bullish" if lead else "bearish",
                                       envelope.degrade(0.4 + min(0.3, abs(cross["eth_minus_btc_3m_pp"]) / 100),
                                                        sources, INPUTS),
                                       "low", f"ether {'ahead of' if lead else 'behind'} bitcoin by "
                                              f"{abs(cross['eth_minus_btc_3m_pp'])} percentage points over three "
                                              "months"))

    parts = [f"{s} at {c['price_usd']} USD ({pct_word(c['change_1d_pct'])} on the day, {pct_word(c['change_1m_pct'])} "
             f"over a month, {trend_word(c['trend_state'])}, 30-day volatility {fig(c['realized_vol_30d_pct'], '%')}, "
             f"{fig(c['drawdown_from_high_pct'], '%')} from its high)" for s, c in coins.items()]
    summary = f"Covered coins: {'; '.join(parts)}."
    if cross:
        summary += (f" The ETH/BTC price ratio is {fig(cross['eth_btc_price_ratio'])}; ether's return minus "
                    f"bitcoin's over three months is {fig(cross['eth_minus_btc_3m_pp'])} percentage points and an "
                    "equal-weight basket of the two moved "
                    f"{fig(cross['equal_weight_basket_change_1m_pct'], '%')} over a month.")
    summary += (f" {len(up)} of {len(coins)} coins are in an uptrend. No market-cap "
                f"dominance is given: the catalog has prices only." + envelope.staleness_note(sources))
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("bitcoin", "bitcoin in detail"), ("ethereum", "ether and the ETH/BTC ratio trend"),
                              ("crypto_momentum", "multi-horizon momentum per coin"),
                              ("crypto_risk", "drawdown, volatility spikes and the risk regime"),
                              ("crypto_volatility", "bitcoin volatility against equities")),
                          methodology="Per coin: returns by calendar horizon, trend against the 50- and 200-day "
                                      "averages (uptrend when price > 50-day > 200-day), 30-day realized volatility "
                                      "annualised with 365 days, drawdown from the highest close available. The basket "
                                      "change is the simple average of the two coins' returns (equal weight at the "
                                      "start of the horizon); the correlation uses the last 90 daily log returns on "
                                      "common dates. The ETH/BTC figure is a price ratio, not market-cap dominance.",
                          unavailable=unavailable)


register(Module(name=NAME, category="crypto", tier="S", inputs=INPUTS,
                description="Overview of the covered coins (BTC, ETH): returns, trend, vol, drawdown, ETH/BTC ratio",
                compute=compute, lookback_days=3700))
