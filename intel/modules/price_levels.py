"""price_levels (ticker): floor-trader pivots (daily and weekly), the 52-week range, Fibonacci
retracements of that range, and rolling VWAPs, with the nearest support and resistance among them.
Pivots need highs and lows and VWAP needs volume: without them those figures are listed as unavailable."""
from __future__ import annotations

from datetime import timedelta

import numpy as np
import polars as pl

from intel import envelope, provenance
from intel.frames import Frames
from intel.modules._common import PRICE_DIGITS, bars_inputs, clean_bars, closed_at, fig, last_price
from intel.registry import Module, register

NAME = "price_levels"
MIN_BARS = 20
YEAR = 252
FIB_RATIOS = (0.236, 0.382, 0.5, 0.618, 0.786)
VWAP_WINDOWS = (5, 20, 50)
NEAR_PCT = 2.0  # "near" a 52-week extreme: within this many percent (a stated parameter)


def pivots(high: float, low: float, close: float) -> dict:
    """Classic floor pivots from one period's high, low and close."""
    p = (high + low + close) / 3
    return {"pivot": p, "r1": 2 * p - low, "s1": 2 * p - high, "r2": p + (high - low), "s2": p - (high - low),
            "r3": high + 2 * (p - low), "s3": low - 2 * (high - p)}


def _weekly_source(bars: pl.DataFrame, now) -> pl.DataFrame | None:
    """Bars of the last complete Monday-Friday week (the week of `now` counts once its Friday is past or
    its Friday bar is in)."""
    week = bars.with_columns((pl.col("date") - pl.duration(days=pl.col("date").dt.weekday() - 1)).alias("week"))
    last_week = week["week"][-1]
    friday = last_week + timedelta(days=4)
    complete = friday < now or bars["date"][-1] >= friday
    target = last_week if complete else last_week - timedelta(days=7)
    chosen = week.filter(pl.col("week") == target)
    if chosen.height == 0:  # a week without bars (holiday gap): the latest earlier week
        earlier = week.filter(pl.col("week") < target)
        if earlier.height == 0:
            return None
        chosen = earlier.filter(pl.col("week") == earlier["week"][-1])
    return chosen


def _figures(frames: Frames, bars: pl.DataFrame, ticker: str, has_range: bool, has_volume: bool
             ) -> tuple[dict, dict]:
    close = bars["close"].to_numpy()
    last = float(close[-1])
    unavailable = {}
    year = bars.tail(YEAR)
    if has_range:
        highs, lows, basis = year["high"].to_numpy(), year["low"].to_numpy(), "daily highs and lows"
    else:
        highs = lows = year["close"].to_numpy()
        basis = "closes (no highs and lows from the source)"
    hi_i, lo_i = int(np.argmax(highs)), int(np.argmin(lows))
    hi, lo = float(highs[hi_i]), float(lows[lo_i])
    span = hi - lo
    rng = {"high": envelope.rnd(hi, PRICE_DIGITS, f"highest of the last {YEAR} bars ({basis})"),
           "low": envelope.rnd(lo, PRICE_DIGITS, f"lowest of the last {YEAR} bars ({basis})"),
           "high_date": year["date"][hi_i].isoformat(), "low_date": year["date"][lo_i].isoformat(),
           "bars_used": envelope.count(year.height, "count of bars in the range"), "basis": basis,
           "distance_from_high_pct": envelope.rnd((last / hi - 1) * 100, 2, "last price vs the 52-week high, percent"),
           "distance_from_low_pct": envelope.rnd((last / lo - 1) * 100, 2, "last price vs the 52-week low, percent"),
           "position_in_range_pct": envelope.rnd((last - lo) / span * 100, 1, "(last - low) / (high - low), percent")
           if span > 0 else None}
    if year.height < YEAR:
        unavailable["full_52w_range"] = f"only {year.height} bars: the range covers less than 52 weeks"

    # retracements of the 52-week swing, measured back from whichever extreme came last
    up_swing = hi_i >= lo_i
    fib = {"swing": "up" if up_swing else "down", "levels": {}}
    for r in FIB_RATIOS:
        level = hi - r * span if up_swing else lo + r * span
        fib["levels"][f"retracement_{r * 100:g}".replace(".", "_")] = envelope.rnd(
            level, PRICE_DIGITS, f"{r * 100:g}% Fibonacci retracement of the 52-week swing")

    levels = {f"fib_{k}": v for k, v in fib["levels"].items()}
    levels.update({"high_52w": rng["high"], "low_52w": rng["low"]})
    data = {"ticker": ticker, "date": bars["date"][-1].isoformat(), **last_price(frames, bars, ticker),
            "range_52w": rng, "fibonacci": fib}
    if has_range:
        daily = pivots(*(float(bars[c][-1]) for c in ("high", "low", "close")))
        data["pivots_daily"] = {k: envelope.rnd(v, PRICE_DIGITS, f"floor pivot {k} from the last daily bar")
                                for k, v in daily.items()}
        data["pivots_daily"]["from_bar"] = bars["date"][-1].isoformat()
        wk = _weekly_source(bars, frames.now)
        if wk is not None:
            weekly = pivots(float(wk["high"].max()), float(wk["low"].min()), float(wk["close"][-1]))
            data["pivots_weekly"] = {k: envelope.rnd(v, PRICE_DIGITS, f"floor pivot {k} from the last complete week")
                                     for k, v in weekly.items()}
            data["pivots_weekly"]["from_week_starting"] = wk["week"][0].isoformat()
            levels.update({f"weekly_{k}": data["pivots_weekly"][k] for k in weekly})
        levels.update({f"daily_{k}": data["pivots_daily"][k] for k in daily})
    else:
        unavailable["pivots"] = "the source gives closes only (no highs and lows)"
    if has_volume:
        price = ((bars["high"] + bars["low"] + bars["close"]) / 3).to_numpy() if has_range else close
        volume = bars["volume"].to_numpy()
        vwap = {}
        for n in VWAP_WINDOWS:
            if len(close) >= n and volume[-n:].sum() > 0:
                value = float((price[-n:] * volume[-n:]).sum() / volume[-n:].sum())
                vwap[f"vwap_{n}d"] = envelope.rnd(value, PRICE_DIGITS, f"volume-weighted average price of {n} bars")
                vwap[f"distance_to_vwap_{n}d_pct"] = envelope.rnd((last / value - 1) * 100, 2,
                                                                  f"last price vs the {n}-bar VWAP, percent")
                levels[f"vwap_{n}d"] = vwap[f"vwap_{n}d"]
        vwap["price_basis"] = "typical price (high+low+close)/3" if has_range else "close"
        data["vwap"] = vwap
    else:
        unavailable["vwap"] = "the source gives no volume"

    below = {k: v for k, v in levels.items() if v is not None and v < last}
    above = {k: v for k, v in levels.items() if v is not None and v > last}
    sup = max(below, key=below.get) if below else None
    res = min(above, key=above.get) if above else None
    data["nearest_support"] = {"level": sup, "price": below.get(sup),
                               "distance_pct": envelope.rnd((below[sup] / last - 1) * 100, 2,
                                                            "nearest level below vs the last price, percent")
                               if sup else None}
    data["nearest_resistance"] = {"level": res, "price": above.get(res),
                                  "distance_pct": envelope.rnd((above[res] / last - 1) * 100, 2,
                                                               "nearest level above vs the last price, percent")
                                  if res else None}
    return data, unavailable


def compute(frames: Frames, bars: pl.DataFrame, ticker: str) -> dict:
    bars, has_range, has_volume = clean_bars(bars, frames.now, NAME, ticker, MIN_BARS)
    sources = envelope.ticker_sources(frames, bars, ticker)
    stale = sources["series"][0]["stale"]
    with provenance.about_inputs(bars_inputs(bars, ticker)):
        data, unavailable = _figures(frames, bars, ticker, has_range, has_volume)
    rng = data["range_52w"]
    signals = _signals(data, has_range, has_volume, stale)
    summary = (f"{closed_at(data, ticker)}, {fig(rng['position_in_range_pct'], '%')} of "
               f"the way up its 52-week range ({rng['low']} to {rng['high']}). Nearest support is "
               f"{_level(data['nearest_support'])} and nearest resistance {_level(data['nearest_resistance'])}.")
    if "pivots_daily" in data:
        summary += f" The daily pivot is {data['pivots_daily']['pivot']}."
    if "vwap" in data and "vwap_20d" in data["vwap"]:
        summary += f" The 20-day VWAP is {data['vwap']['vwap_20d']}."
    summary += "".join(f" {k.replace('_', ' ').capitalize()} unavailable: {v}." for k, v in unavailable.items()
                       if k != "full_52w_range")
    summary += " The last bar is stale." if stale else ""
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("technical_analysis", "trend, RSI and MACD for the same ticker"),
                              ("momentum_score", "momentum and strength against the S&P 500"),
                              ("volatility_analysis", "how far the ticker typically moves toward these levels"),
                              ("equity_indices", "the broad market beside the ticker")),
                          methodology="Classic floor pivots P = (H+L+C)/3, R1 = 2P-L, S1 = 2P-H, R2/S2 = P +/- (H-L), "
                                      "R3 = H+2(P-L), S3 = L-2(H-P), from the last daily bar (for the next session) "
                                      "and the last complete week. Fibonacci retracements of the 52-week (252-bar) "
                                      "high-low swing, measured back from the later extreme. VWAP = sum(typical price "
                                      "x volume) / sum(volume) over the last 5, 20 and 50 bars.",
                          unavailable=unavailable or None)


def _level(entry: dict) -> str:
    if entry["level"] is None:
        return "none among the computed levels"
    return f"{entry['price']} ({entry['level']}, {entry['distance_pct']}%)"


def _signals(d: dict, has_range: bool, has_volume: bool, stale: bool) -> list[dict]:
    scale = (1.0 if has_range else 0.85) * (1.0 if has_volume else 0.9) * (0.6 if stale else 1.0)
    rng, out = d["range_52w"], []
    from_high, from_low = rng["distance_from_high_pct"], rng["distance_from_low_pct"]
    if from_high >= -NEAR_PCT:
        where = f"{abs(from_high)}% below" if from_high else "at"
        out.append(envelope.signal("range_position", "bullish", 0.55 * scale, "medium",
                                   f"{where} the 52-week high of {rng['high']}"))
    elif from_low <= NEAR_PCT:
        where = f"{from_low}% above" if from_low else "at"
        out.append(envelope.signal("range_position", "bearish", 0.55 * scale, "medium",
                                   f"{where} the 52-week low of {rng['low']}"))
    else:
        out.append(envelope.signal("range_position", "neutral", 0.4 * scale, "low",
                                   f"mid-range, {fig(rng['position_in_range_pct'], '%')} of the 52-week range"))
    dist = d.get("vwap", {}).get("distance_to_vwap_20d_pct")
    if dist is not None:
        direction = "bullish" if dist > 0 else "bearish" if dist < 0 else "neutral"
        out.append(envelope.signal("vwap_position", direction, min(0.7, 0.4 + abs(dist) / 20) * scale, "low",
                                   f"close {dist}% from its 20-day VWAP"))
    return out


register(Module(name=NAME, category="ticker", tier="S", inputs=(), takes_ticker=True,
                description="Pivots, 52-week range, Fibonacci retracements, rolling VWAP",
                compute=compute, lookback_days=800))
