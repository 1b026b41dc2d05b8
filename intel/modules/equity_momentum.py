"""equity_momentum: S&P 500 and Nasdaq momentum over 1/3/6/12 months and 12-1, trend strength (ADX on
closes), momentum percentiles, and the same momentum across the sector ETFs."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.catalog import SECTOR_NAMES, SECTORS
from intel.frames import Frames
from intel.modules._common import TRADING_HORIZONS, fig
from intel.registry import Module, register

NAME = "equity_momentum"
INDICES = {"SP500": "S&P 500", "NASDAQCOM": "Nasdaq Composite"}
# 12-1 is the 12-month return skipping the latest month (the usual definition)
YEAR, MONTH, ADX_N = 252, 21, 14


def momentum(frame, sid: str, price: str = "close") -> dict:
    """Returns over trading-day horizons, each the percent change between two named closes (as
    indicators.return_pct computes it: the later close first); `price` names them in the operations."""
    last = envelope.last_obs(frame, sid)
    out = {f"momentum_{h}_pct": envelope.pct_change(last, envelope.nth_obs(frame, sid, -1 - n), 2,
                                                    f"{n}-trading-day return: percent change from the {price} {n} "
                                                    "trading days earlier")
           for h, n in TRADING_HORIZONS.items()}
    out["momentum_12_1_pct"] = envelope.pct_change(envelope.nth_obs(frame, sid, -1 - MONTH),
                                                   envelope.nth_obs(frame, sid, -1 - YEAR), 2,
                                                   f"12-1 momentum: percent change from the {price} {YEAR} trading "
                                                   f"days before the last to the {price} {MONTH} trading days before "
                                                   "it")
    return out


def close_adx(close: np.ndarray) -> dict:
    """Wilder's ADX with each close standing in for the high and the low (an index series has neither):
    +DM is the day's rise, -DM the day's fall and the true range the absolute change, so the DX is how
    one-sided the last 14 days' moves were. Close-only readings run on their own scale, so the strength
    label comes from the ADX's percentile in its own history rather than the textbook 20/25 lines."""
    adx, pdi, ndi = indicators.adx(close, close, close, ADX_N)
    value, past = adx[-1], adx[np.isfinite(adx)]
    out = {"adx_14_close": envelope.rnd(value, 2, "Wilder's 14-day ADX on closes"), "adx_percentile": None,
           "plus_di_14": envelope.rnd(pdi[-1], 2, "Wilder's 14-day +DI on closes"),
           "minus_di_14": envelope.rnd(ndi[-1], 2, "Wilder's 14-day -DI on closes"),
           "trend_strength": None, "trend_direction": None}
    if not np.isfinite(value) or len(past) < YEAR:
        return out
    pct = indicators.percentile_rank(past, value)
    out.update({"adx_percentile": envelope.rnd(pct, 1, "percentile rank of the close-based ADX in its own history"),
                "trend_strength": "strong" if pct >= 75 else "weak" if pct <= 25 else "moderate",
                "trend_direction": "up" if pdi[-1] >= ndi[-1] else "down"})
    return out


def _index(frames: Frames, sid: str) -> dict:
    hist = indicators.window(frames.get(sid), 3653)
    close = hist["value"].to_numpy()
    out = {"level": envelope.level(frames, sid, 2, op="latest close"), "date": hist["date"][-1].isoformat(),
           **momentum(hist, sid)}
    with provenance.about(frames, sid):
        for key, n, skip, words in (("12_1", YEAR, MONTH, "12-1"), ("3m", 63, 0, "3-month")):
            past = indicators.rolling_return_pct(close, n, skip)
            current = indicators.return_pct(close, n, skip)
            # a percentile against fewer than a year of values would say little
            out[f"momentum_{key}_percentile"] = (
                envelope.rnd(indicators.percentile_rank(past, current), 1, f"percentile rank of the {words} "
                                                                           "momentum among its daily values in up to "
                                                                           "ten years")
                if current is not None and len(past) >= YEAR else None)
        # the first day with a 12-1 value: the percentile ranks against values from here on
        out["percentile_history_start"] = hist["date"][YEAR].isoformat() if len(close) > YEAR else None
        out.update(close_adx(close))
    return out


def sectors_block(frames: Frames) -> tuple[dict, dict]:
    table, unavailable = {}, {}
    for sid in SECTORS:
        frame = frames.get(sid)
        if frame is not None:
            table[sid] = {"name": SECTOR_NAMES[sid], **momentum(indicators.window(frame, 400), sid, "adjusted close")}
    ranked = sorted((s for s in table if table[s]["momentum_12_1_pct"] is not None),
                    key=lambda s: -table[s]["momentum_12_1_pct"])
    # a rank, the share and the median rest on every ranked sector's 12-1 momentum
    with provenance.about(frames, *ranked):
        for rank, sid in enumerate(ranked, 1):
            table[sid]["rank_12_1"] = envelope.count(rank, "rank by 12-1 momentum among the sectors (1 = strongest)")
        out = {"by_sector": table, "ranked_12_1": ranked}
        if ranked:
            positive = sum(table[s]["momentum_12_1_pct"] > 0 for s in ranked)
            out["share_positive_12_1_pct"] = envelope.rnd(positive / len(ranked) * 100, 1,
                                                          "percent of the ranked sectors with positive 12-1 momentum")
            out["median_12_1_pct"] = envelope.rnd(np.median([table[s]["momentum_12_1_pct"] for s in ranked]), 2,
                                                  "median 12-1 momentum of the ranked sectors, percent")
            out["leaders"], out["laggards"] = ranked[:3], ranked[-3:][::-1]
    if not ranked:
        unavailable["sectors.ranking"] = "no sector ETF has a year of history"
    short = [s for s in table if table[s]["momentum_12_1_pct"] is None]
    if short:
        unavailable["sectors.momentum_12_1_pct"] = "less than a year of history for " + ", ".join(short)
    return out, unavailable


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INDICES)
    inputs = (*INDICES, *SECTORS)
    sources = envelope.data_sources(frames, inputs)
    data = {sid: _index(frames, sid) for sid in INDICES if frames.get(sid) is not None}
    data["sectors"], unavailable = sectors_block(frames)
    signals, sentences = [], []
    for sid, d in ((k, v) for k, v in data.items() if k in INDICES):
        label, m12, m3, pct = INDICES[sid], d["momentum_12_1_pct"], d["momentum_3m_pct"], d["momentum_12_1_percentile"]
        if m12 is None or m3 is None:
            direction, urgency, confidence = "neutral", "low", 0.3
            reason = f"{label}: less than a year of closes for 12-1 momentum (3-month {fig(m3, '%')})"
        else:
            direction = "bullish" if m12 > 0 and m3 > 0 else "bearish" if m12 < 0 and m3 < 0 else "neutral"
            strong = d["trend_strength"] == "strong"
            urgency = "medium" if direction == "bearish" and strong else "low"
            confidence = 0.4 + (abs(pct - 50) / 150 if pct is not None else 0) + (0.15 if strong else 0)
            reason = (f"{label} 12-1 momentum {m12}%, 3-month {m3}%, close-based ADX {fig(d['adx_14_close'])}")
        signals.append(envelope.signal(f"{sid.lower()}_momentum", direction,
                                       envelope.degrade(confidence, sources, essential=[sid]), urgency, reason))
        adx_text = (f"a close-based ADX of {d['adx_14_close']} (percentile {d['adx_percentile']}: "
                    f"{d['trend_strength']} trend, {d['trend_direction']})" if d["trend_strength"] is not None
                    else f"a close-based ADX of {fig(d['adx_14_close'])} with too little history to rank it")
        sentences.append(
            f"The {label} shows 12-1 momentum of {fig(m12, '%')}"
            + (f" (percentile {pct} of its history since {d['percentile_history_start']})" if pct is not None else "")
            + f", with {fig(d['momentum_1m_pct'], '%')} over one month, {fig(m3, '%')} over three, "
              f"{fig(d['momentum_6m_pct'], '%')} over six and {fig(d['momentum_12m_pct'], '%')} over twelve, "
              f"and {adx_text}.")
    sec = data["sectors"]
    if sec.get("leaders"):
        table = sec["by_sector"]
        names = lambda ids: ", ".join(f"{table[s]['name']} ({table[s]['momentum_12_1_pct']}%)" for s in ids)  # noqa: E731
        share = sec["share_positive_12_1_pct"]
        sentences.append(f"Among sectors, {share}% have positive 12-1 momentum (median {sec['median_12_1_pct']}%); "
                         f"leaders: {names(sec['leaders'])}; laggards: {names(sec['laggards'])}.")
        breadth_dir = "bullish" if share >= 70 else "bearish" if share <= 30 else "neutral"
        conf = 0.4 + abs(share - 50) / 125 * min(1.0, len(sec["ranked_12_1"]) / len(SECTORS))
        signals.append(envelope.signal("sector_momentum_breadth", breadth_dir, envelope.degrade(conf, sources),
                                       "medium" if share <= 20 else "low",
                                       f"{share}% of sectors with positive 12-1 momentum"))
    else:
        sentences.append("No sector has a year of history for 12-1 momentum.")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=" ".join(sentences) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("equity_indices", "levels, moving averages and crosses"),
                              ("sector_rotation", "sector strength relative to the index"),
                              ("market_breadth", "how many sectors confirm the trend"),
                              ("equity_volatility", "the volatility behind the trend"),
                              ("equity_drawdown", "distance from the high and recovery odds")),
                          methodology="Momentum is the percent return over 21, 63, 126 and 252 trading days; 12-1 is "
                                      "the 252-day return ending 21 days ago. Percentiles rank today's value among the "
                                      "same measure on every day of up to ten years. ADX is Wilder's 14-day ADX with "
                                      "each close used as high and low (indices publish no intraday range): +DM is the "
                                      "day's rise, -DM its fall, the true range the absolute change. As close-only "
                                      "readings run on their own scale, the trend is strong when that ADX is at or "
                                      "above the 75th percentile of its own ten-year history and weak at or below the "
                                      "25th. Sectors are ranked by 12-1 momentum.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="equities", tier="S", inputs=(*INDICES, *SECTORS),
                description="1/3/6/12-month and 12-1 momentum, ADX trend strength, momentum percentile, sectors",
                compute=compute, lookback_days=3700))
