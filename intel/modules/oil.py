"""oil: WTI and Brent levels, returns, trend, realized volatility, and the Brent-WTI spread."""
from __future__ import annotations

import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._commodities import percentile_of_last, realized_vol_pct, rolling_vol_pct
from intel.modules._common import fig, observed_horizon_returns, pct_word, trend_profile
from intel.registry import Module, register

NAME = "oil"
WTI, BRENT = "DCOILWTICO", "DCOILBRENTEU"
BENCHMARKS = {WTI: "wti", BRENT: "brent"}
LABEL = {"wti": "WTI", "brent": "Brent"}
YEAR = 252  # trading days in a year
SHOCK_1M_PCT, SPREAD_Z = 20.0, 2.0  # a 20% move in a month is an oil shock; |z| >= 2 is an unusual spread


def benchmark(frames: Frames, series_id: str) -> dict:
    """The price and its changes from named closes; trend, range, standing and volatility scoped to the series."""
    frame = frames.get(series_id)
    close = frame["value"].to_numpy()
    year = indicators.window(frame, 365)["value"].to_numpy()
    out = {"price_usd_per_barrel": envelope.level(frames, series_id, 2), "date": frame["date"][-1].isoformat()}
    out.update(observed_horizon_returns(frames, series_id))
    with provenance.about(frames, series_id):
        out.update(trend_profile(frame))
        out["high_1y"] = envelope.rnd(year.max(), 2, "highest close of the past year")
        out["low_1y"] = envelope.rnd(year.min(), 2, "lowest close of the past year")
        out["percentile_1y"] = envelope.rnd(indicators.percentile_rank(year, close[-1]), 1,
                                            "percentile rank within the past year")
        out["percentile_10y"] = envelope.rnd(percentile_of_last(close, 10 * YEAR), 1,
                                             f"percentile rank within the last {10 * YEAR} closes")
        out["realized_vol_21d_pct"] = envelope.rnd(realized_vol_pct(close, 21, YEAR), 2,
                                                   "annualized volatility of the last 21 daily simple returns, percent")
        out["realized_vol_63d_pct"] = envelope.rnd(realized_vol_pct(close, 63, YEAR), 2,
                                                   "annualized volatility of the last 63 daily simple returns, percent")
        vols = rolling_vol_pct(close, 21, YEAR)[-YEAR:]
        out["realized_vol_21d_percentile_1y"] = envelope.rnd(
            percentile_of_last(vols, YEAR), 1, "percentile rank of the 21-day vol within its past 252 values") \
            if len(vols) else None
    return out


def spread_block(frames: Frames) -> dict | None:
    """Brent minus WTI on the days both printed: the level from the two named closes of the last common day,
    the rest scoped to both series."""
    wti, brent = frames.get(WTI), frames.get(BRENT)
    joined = brent.join(wti, on="date", how="inner", suffix="_wti").sort("date")
    if joined.is_empty():
        return None
    spread = joined.select("date", (pl.col("value") - pl.col("value_wti")).alias("value"))
    values = spread["value"].to_numpy()
    year = indicators.window(spread, 365)["value"].to_numpy()
    day = joined["date"][-1]
    level = envelope.difference((BRENT, day, float(joined["value"][-1])), (WTI, day, float(joined["value_wti"][-1])), 2,
                                scale=1.0, op="Brent - WTI on their last common day, USD per barrel")
    with provenance.about(frames, BRENT, WTI):
        return {"level_usd": level, "date": spread["date"][-1].isoformat(),
                "change_1m_usd": envelope.rnd(indicators.change_since(spread, 30, "diff"), 2,
                                              "change of the spread since the last common day a month earlier, USD"),
                "mean_1y_usd": envelope.rnd(year.mean(), 2, "mean spread of the past year, USD"),
                "zscore_1y": envelope.rnd(indicators.zscore(year, values[-1]), 2),
                "percentile_1y": envelope.rnd(indicators.percentile_rank(year, values[-1]), 1)}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, BENCHMARKS)
    sources = envelope.data_sources(frames, BENCHMARKS)
    data, unavailable = {}, {}
    for sid, key in BENCHMARKS.items():
        if frames.get(sid) is not None:
            data[key] = benchmark(frames, sid)
        else:
            unavailable[key] = f"no {sid} observations in the warehouse"
    spread = spread_block(frames) if len(data) == 2 else None
    if spread is not None:
        data["spread_brent_wti"] = spread
    else:
        unavailable["spread_brent_wti"] = "needs both WTI and Brent on common days"
    lead_key = "wti" if "wti" in data else "brent"
    lead_id = WTI if lead_key == "wti" else BRENT
    lead, name = data[lead_key], LABEL[lead_key]
    data["lead_benchmark"] = lead_key

    # direction refers to the oil price itself
    state, dist, m1 = lead["trend_state"], lead["distance_to_sma200_pct"], lead["change_1m_pct"]
    direction = {"uptrend": "bullish", "downtrend": "bearish"}.get(state, "neutral")
    signals = [envelope.signal("oil_trend", direction,
                               envelope.degrade(0.5 + min(0.35, abs(dist or 0) / 40), sources, [lead_id]),
                               "medium" if m1 is not None and abs(m1) >= SHOCK_1M_PCT / 2 else "low",
                               f"{name} in {state.replace('_', ' ')}, {fig(dist, '%')} from its 200-day average "
                               "(direction refers to the oil price)")]
    if m1 is not None and abs(m1) >= SHOCK_1M_PCT:
        signals.append(envelope.signal("oil_shock", "bullish" if m1 > 0 else "bearish",
                                       envelope.degrade(0.5 + min(0.4, (abs(m1) - SHOCK_1M_PCT) / 50), sources,
                                                        [lead_id]),
                                       "high", f"{name} {pct_word(m1)} in a month (direction refers to the oil price)"))
    vol_pct = lead["realized_vol_21d_percentile_1y"]
    if vol_pct is not None and vol_pct >= 90:
        signals.append(envelope.signal("oil_volatility", "neutral",
                                       envelope.degrade(0.4 + vol_pct / 250, sources, [lead_id]),
                                       "medium",
                                       f"{name} 21-day realized volatility {lead['realized_vol_21d_pct']}% is at "
                                       f"the {vol_pct} percentile of its past year"))
    if spread is not None and spread["zscore_1y"] is not None and abs(spread["zscore_1y"]) >= SPREAD_Z:
        signals.append(envelope.signal("brent_wti_spread", "neutral",
                                       envelope.degrade(0.4 + min(0.4, abs(spread["zscore_1y"]) / 10), sources,
                                                        list(BENCHMARKS)),
                                       "medium", f"Brent-WTI spread {spread['level_usd']} USD, 1-year z-score "
                                                 f"{spread['zscore_1y']}"))

    text = (f"{name} is at {lead['price_usd_per_barrel']} USD per barrel ({lead['date']}), "
            f"{pct_word(lead['change_1d_pct'])} on the day, {pct_word(m1)} over a month and "
            f"{pct_word(lead['change_3m_pct'])} over three months, in {state.replace('_', ' ')} "
            f"({fig(dist, '%')} from its 200-day average). Its 21-day realized volatility is "
            f"{fig(lead['realized_vol_21d_pct'], '%')} (1-year percentile {fig(vol_pct)}).")
    if "brent" in data and lead_key == "wti":
        text += (f" Brent is at {data['brent']['price_usd_per_barrel']} USD, "
                 f"{pct_word(data['brent']['change_1m_pct'])} "
                 "over a month.")
    if spread is not None:
        text += (f" The Brent-WTI spread is {spread['level_usd']} USD (1-year mean {spread['mean_1y_usd']}, "
                 f"z-score {fig(spread['zscore_1y'])}).")
    else:
        text += " The Brent-WTI spread is unavailable: only one benchmark has data."
    return envelope.build(NAME, frames, data=data, signals=signals, summary=text + envelope.staleness_note(sources),
                          sources=sources,
                          related_modules=envelope.related(
                              ("commodities_overview", "oil beside copper, gasoline and the broad index"),
                              ("inflation", "how energy prices feed headline inflation"),
                              ("cross_asset_volatility", "oil volatility against other asset classes"),
                              ("fx_overview", "the dollar and commodity currencies"),
                              ("sector_rotation", "energy sector leadership")),
                          methodology="Returns compare the last close with the close on or before each horizon; "
                                      "realized volatility is the sample standard deviation of daily simple returns "
                                      "(WTI can print below zero, so no logs) annualized with 252 days; the spread is "
                                      "Brent minus WTI on common days, its z-score against the past year.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="commodities", tier="S", inputs=tuple(BENCHMARKS),
                description="WTI/Brent levels, spread, momentum, vol",
                compute=compute, lookback_days=3700))
