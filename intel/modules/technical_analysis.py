"""technical_analysis (ticker): averages, RSI, MACD, Bollinger, ADX, ATR, support/resistance, trend, signals.
Works on closes alone when a source has no highs and lows: range-based indicators are then listed
under `unavailable` and confidence is lowered."""
from __future__ import annotations

import numpy as np
import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import PRICE_DIGITS, bars_inputs, clean_bars, closed_at, fig, last_crosses, last_price
from intel.registry import Module, register

NAME = "technical_analysis"
MIN_BARS = 35  # MACD's signal line needs 26 + 9 closes


def _last(a: np.ndarray, digits: int = PRICE_DIGITS, op: str | None = None):
    return envelope.rnd(a[-1], digits, op) if len(a) else None


def compute(frames: Frames, bars: pl.DataFrame, ticker: str) -> dict:
    bars, has_range, _ = clean_bars(bars, frames.now, NAME, ticker, MIN_BARS)
    # no series inputs; the keys in the order this module has always published them
    sources = {"provider": frames.data_source, "missing": [], "series": [envelope.bars_status(frames, bars, ticker)]}
    with provenance.about_inputs(bars_inputs(bars, ticker)):
        data, unavailable = _figures(frames, bars, ticker, has_range)
    stale = sources["series"][0]["stale"]
    signals = _signals(data, has_range, stale)
    summary = (f"{closed_at(data, ticker)} ({fig(data['change_1d_pct'], '%')} on the day), "
               f"trend {data['trend']['state']} ({data['trend']['strength']} strength); RSI is {fig(data['rsi_14'])}, "
               f"the MACD histogram {fig(data['macd_12_26_9']['histogram'])}, and the close sits at "
               f"{fig(data['bollinger_20_2']['percent_b'])} of its Bollinger band. Support is near "
               f"{data['support_resistance']['support_20d']} and resistance near "
               f"{data['support_resistance']['resistance_20d']}."
               + ("" if has_range else " Highs and lows are missing, so ADX and ATR are not computed.")
               + (" The last bar is stale." if stale else ""))
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("equity_indices", "the broad market trend beside the ticker"),
                              ("vix", "market volatility beside the ticker's own"),
                              ("price_levels", "pivots, Fibonacci levels and VWAP for the same ticker"),
                              ("momentum_score", "momentum and strength against the S&P 500"),
                              ("volatility_analysis", "realized volatility and expected move")),
                          methodology="Standard definitions: Wilder RSI/ATR/ADX (14), MACD (12, 26, 9), Bollinger "
                                      "(20, 2 population deviations); trend from the close against its 50 and 200 "
                                      "averages, strength from ADX. Prices are in cents; when the source adjusts "
                                      "them for splits and dividends, the last price is `adj_close`, not `close`.",
                          unavailable=unavailable or None)


def _figures(frames: Frames, bars: pl.DataFrame, ticker: str, has_range: bool) -> tuple[dict, dict]:
    close = bars["close"].to_numpy()
    unavailable = {}
    last, prior = (ticker, bars["date"][-1], float(close[-1])), (ticker, bars["date"][-2], float(close[-2]))
    data: dict = {"ticker": ticker, "date": bars["date"][-1].isoformat(), **last_price(frames, bars, ticker),
                  "change_1d_pct": envelope.pct_change(last, prior, 2, "percent change from the previous close")}
    mas = {}
    for n in (20, 50, 200):
        mas[f"sma_{n}"] = _last(indicators.sma(close, n), op=f"{n}-day simple moving average of closes")
        mas[f"ema_{n}"] = _last(indicators.ema(close, n), op=f"{n}-day exponential moving average of closes")
        if mas[f"sma_{n}"] is None:
            unavailable[f"sma_{n}"] = unavailable[f"ema_{n}"] = f"needs {n} closes, have {len(close)}"
        else:
            mas[f"distance_to_sma{n}_pct"] = envelope.rnd((close[-1] / indicators.sma(close, n)[-1] - 1) * 100, 2)
    data["moving_averages"] = mas
    data["rsi_14"] = _last(indicators.rsi(close, 14), 2, "14-day Wilder RSI")
    line, sig, hist = indicators.macd(close)
    golden, death = last_crosses(bars["date"], line, sig)
    data["macd_12_26_9"] = {"line": _last(line, 4, "MACD line: 12-day EMA - 26-day EMA"),
                            "signal": _last(sig, 4, "MACD signal: 9-day EMA of the MACD line"),
                            "histogram": _last(hist, 4, "MACD line - signal line"),
                            "last_bullish_cross": golden, "last_bearish_cross": death}
    mid, upper, lower = indicators.bollinger(close, 20, 2)
    width = upper[-1] - lower[-1]
    data["bollinger_20_2"] = {
        "middle": _last(mid, op="20-day Bollinger middle band (20-day mean)"),
        "upper": _last(upper, op="20-day Bollinger upper band (mean + 2 sd)"),
        "lower": _last(lower, op="20-day Bollinger lower band (mean - 2 sd)"),
        "percent_b": envelope.rnd((close[-1] - lower[-1]) / width, 3, "Bollinger %b: (close - lower) / (upper - lower)")
        if width > 0 else None,
        "bandwidth_pct": envelope.rnd(width / mid[-1] * 100, 2,
                                      "Bollinger bandwidth: (upper - lower) / middle, percent")}
    year = bars.tail(252)
    if has_range:
        high, low = bars["high"].to_numpy(), bars["low"].to_numpy()
        adx, pdi, ndi = indicators.adx(high, low, close, 14)
        atr = indicators.atr(high, low, close, 14)
        data.update({"adx_14": _last(adx, 2, "14-day Wilder ADX"), "plus_di_14": _last(pdi, 2, "14-day +DI"),
                     "minus_di_14": _last(ndi, 2, "14-day -DI"), "atr_14": _last(atr, op="14-day Wilder ATR"),
                     "atr_pct": envelope.rnd(atr[-1] / close[-1] * 100, 2, "14-day ATR as a percent of the close")})
        lows, highs, basis = year["low"].to_numpy(), year["high"].to_numpy(), "daily lows and highs"
    else:
        reason = "the source gives closes only (no highs and lows)"
        unavailable.update({k: reason for k in ("adx_14", "plus_di_14", "minus_di_14", "atr_14", "atr_pct")})
        lows = highs = year["close"].to_numpy()
        basis = "closes (no highs and lows from the source)"
    low_word, high_word = ("low", "high") if has_range else ("close", "close")
    data["support_resistance"] = {
        "support_20d": envelope.rnd(lows[-20:].min(), PRICE_DIGITS, f"lowest daily {low_word} of 20 days"),
        "resistance_20d": envelope.rnd(highs[-20:].max(), PRICE_DIGITS, f"highest daily {high_word} of 20 days"),
        "support_60d": envelope.rnd(lows[-60:].min(), PRICE_DIGITS, f"lowest daily {low_word} of 60 days"),
        "resistance_60d": envelope.rnd(highs[-60:].max(), PRICE_DIGITS, f"highest daily {high_word} of 60 days"),
        "low_52w": envelope.rnd(lows.min(), PRICE_DIGITS, f"lowest daily {low_word} of 252 days"),
        "high_52w": envelope.rnd(highs.max(), PRICE_DIGITS, f"highest daily {high_word} of 252 days"),
        "basis": basis}
    data["trend"] = _trend(close[-1], mas, data.get("adx_14"))
    return data, unavailable


def _trend(last: float, mas: dict, adx) -> dict:
    s50, s200 = mas.get("sma_50"), mas.get("sma_200")
    if s50 is None:
        state = "undetermined"
    elif s200 is None:
        state = "uptrend" if last > s50 else "downtrend"
    else:
        state = "uptrend" if last > s50 > s200 else "downtrend" if last < s50 < s200 else "sideways"
    strength = "unknown" if adx is None else "strong" if adx >= 25 else "weak" if adx < 20 else "moderate"
    return {"state": state, "strength": strength}


def _signals(data: dict, has_range: bool, stale: bool) -> list[dict]:
    scale = (1.0 if has_range else 0.85) * (0.6 if stale else 1.0)
    trend = data["trend"]
    direction = {"uptrend": "bullish", "downtrend": "bearish"}.get(trend["state"], "neutral")
    base = {"strong": 0.75, "moderate": 0.65, "weak": 0.5, "unknown": 0.55}[trend["strength"]]
    out = [envelope.signal("trend", direction, base * scale, "low", f"{trend['state']}, {trend['strength']} strength")]
    rsi = data["rsi_14"]
    if rsi is not None:
        rsi_dir = "bearish" if rsi > 70 else "bullish" if rsi < 30 else "neutral"
        out.append(envelope.signal("rsi", rsi_dir, (0.6 if rsi_dir != "neutral" else 0.4) * scale,
                                   "medium" if rsi_dir != "neutral" else "low",
                                   f"RSI {rsi}: "
                                   + ("overbought" if rsi > 70 else "oversold" if rsi < 30 else "mid-range")))
    macd = data["macd_12_26_9"]
    if macd["histogram"] is not None:
        recent = max(filter(None, [macd["last_bullish_cross"], macd["last_bearish_cross"]]), default=None)
        # a cross in the last week makes the signal more pressing
        fresh = recent is not None and (np.datetime64(data["date"]) - np.datetime64(recent)).astype(int) <= 7
        hist = macd["histogram"]
        out.append(envelope.signal("macd", "bullish" if hist > 0 else "bearish" if hist < 0 else "neutral",
                                   0.55 * scale,
                                   "medium" if fresh else "low", "MACD above its signal line" if hist > 0
                                   else "MACD below its signal line" if hist < 0 else "MACD on its signal line"))
    return out


register(Module(name=NAME, category="ticker", tier="S", inputs=(), takes_ticker=True,
                description="SMA/EMA 20/50/200, RSI, MACD, Bollinger, ADX, ATR, support/resistance, trend, signals",
                compute=compute, lookback_days=800))
