"""bitcoin: price, returns, trend against its averages, realized volatility and drawdown."""
from __future__ import annotations

from datetime import timedelta

import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import INTRADAY_SOURCES, Frames
from intel.modules._common import fig, pct_word
from intel.modules._crypto import DAYS_PER_YEAR, coin_profile, coin_signals, coin_summary
from intel.registry import Module, register

NAME = "bitcoin"
SERIES = "CBBTCUSD"
HOURS_PER_YEAR = 24 * DAYS_PER_YEAR  # bitcoin trades around the clock


def intraday_block(frames: Frames) -> tuple[dict | None, str | None]:
    """(figures from the hourly candles, None) or (None, why there are none). The 24h window is the 24
    candles closed in (last - 24h, last]; the change compares the last close with the last close at or
    before last - 24h; volatility is the sample std (ddof 1) of the hourly log returns between the closes
    in [last - 24h, last], annualized with sqrt(24 * 365), in percent."""
    candles = frames.intraday.get(SERIES)
    if candles is None or candles.is_empty():
        if frames.data_source not in INTRADAY_SOURCES:
            return None, f"the {frames.data_source} provider has no intraday candles"
        return None, f"no hourly {SERIES} candles closed in the 48 hours before now are stored"
    last_ts = candles["ts"][-1]
    start = last_ts - timedelta(hours=24)
    window = candles.filter(pl.col("ts") > start)
    before = candles.filter(pl.col("ts") <= start)
    last = float(candles["close"][-1])
    base = float(before["close"][-1]) if before.height else None
    spanned = candles.filter(pl.col("ts") >= start)
    closes = spanned["close"].to_numpy()
    vol = indicators.realized_vol(closes, len(closes) - 1, HOURS_PER_YEAR) if len(closes) >= 3 else None
    # the candles are not daily observations: each figure names the series and the UTC days of its candles
    with _candles(candles.tail(1)):
        last_close = envelope.rnd(last, 2, "close of the last hourly candle")
    with _candles(pl.concat([before.tail(1), candles.tail(1)])):
        change = envelope.rnd((last / base - 1) * 100, 2, "percent change of the last hourly close from the last close "
                                                          "at or before 24h earlier") if base else None
    with _candles(window):
        high = envelope.rnd(window["high"].max(), 2, "highest hourly high of the candles closed in the last 24h")
        low = envelope.rnd(window["low"].min(), 2, "lowest hourly low of the candles closed in the last 24h")
        count = envelope.count(window.height, "count of hourly candles closed in the last 24h")
    with _candles(spanned):
        vol = envelope.rnd(vol, 2,
                           "annualized (x sqrt 24 x 365) sample std of the hourly log returns over 24h, percent")
    return {"last_close_usd": last_close, "last_close_ts": last_ts.isoformat(), "change_24h_pct": change,
            "high_24h": high, "low_24h": low, "realized_vol_24h_pct": vol, "candles_24h": count}, None


def _candles(candles: pl.DataFrame, operation: str | None = None):
    """A scope naming the hourly candles behind a figure: the series and the UTC days of their close times."""
    days = tuple(sorted({ts.date() for ts in candles["ts"]}))
    return provenance.about_inputs((provenance.Input(SERIES, dates=days),), operation)


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [SERIES], need="all")
    sources = envelope.data_sources(frames, [SERIES])
    data = coin_profile(frames, SERIES)
    intraday, no_intraday = intraday_block(frames)
    if intraday is not None:
        data["intraday"] = intraday

    signals = coin_signals(data, sources, SERIES, "btc", "bitcoin", severe_dd=-50)
    vol = data["realized_vol_30d_pct"]
    if vol is not None and data["realized_vol_90d_pct"] is not None and vol > 1.5 * data["realized_vol_90d_pct"]:
        signals.append(envelope.signal("btc_volatility_spike", "bearish", envelope.degrade(0.55, sources, [SERIES]),
                                       "medium", "30-day realized volatility is over 1.5x its 90-day level"))
    summary = (coin_summary("Bitcoin", data)
               # no "24" in the text: every figure of a summary must be a value in data
               + (f" On hourly candles the last close is {intraday['last_close_usd']} USD, "
                  f"{pct_word(intraday['change_24h_pct'])} over the past day, between {fig(intraday['low_24h'])} "
                  f"and {fig(intraday['high_24h'])}, with realized volatility of hourly returns over the day of "
                  f"{fig(intraday['realized_vol_24h_pct'], '%')} annualized." if intraday else "")
               + envelope.staleness_note(sources))
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("equity_indices", "the Nasdaq and S&P 500 trend beside bitcoin"),
                              ("market_intelligence", "where crypto sits in the cross-market picture"),
                              ("crypto_volatility", "bitcoin volatility against equities"),
                              ("btc_macro_correlation", "rolling betas to Nasdaq, the dollar and yields"),
                              ("halving_cycle", "where bitcoin sits in its halving cycle"),
                              ("ethereum", "ether and the ETH/BTC ratio")),
                          methodology="Realized volatility is the sample standard deviation of daily log returns "
                                      "annualized with 365 days; drawdown is measured from the highest close in the "
                                      "history available. Intraday (from hourly candles stamped with their close "
                                      "time): change over 24h against the last close at or before 24h earlier, high "
                                      "and low of the candles closed in the last 24h, and realized volatility as the "
                                      "sample standard deviation of the hourly log returns over those 24 hours "
                                      "annualized with 24 x 365 hours.",
                          unavailable={"intraday": no_intraday} if no_intraday else None)


register(Module(name=NAME, category="crypto", tier="S", inputs=(SERIES,),
                description="Price, returns, trend vs averages, realized vol, drawdown",
                compute=compute, lookback_days=3700))
