"""asset_class_momentum: time-series (12-month sign) and cross-sectional (volatility-scaled) momentum across
equities, 10-year Treasuries, the dollar, oil, bitcoin and high-yield credit."""
from __future__ import annotations

import math

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig
from intel.modules._cross_asset import BOND_METHOD, HY_METHOD, bond_index, credit_index, price_return, ret_pct
from intel.registry import Module, register

NAME = "asset_class_momentum"
# asset class -> (series, how its return index is built)
ASSETS = {"equities": ("SP500", "price"), "bonds": ("DGS10", "bond"), "dollar": ("DTWEXBGS", "price"),
          "oil": ("DCOILWTICO", "price"), "bitcoin": ("CBBTCUSD", "price"), "credit": ("BAMLH0A0HYM2", "hy")}
RISK_ASSETS = ("equities", "credit", "oil", "bitcoin")
HORIZONS = {"1m": (30, 0), "3m": (91, 0), "6m": (182, 0), "12m": (365, 0), "12_1": (365, 30)}
# horizon (in years) of the returns that enter the cross-sectional score, for volatility scaling
SCORED = {"3m": 0.25, "6m": 0.5, "12_1": 11 / 12}
# the return index each kind builds, for the operations' wording
INDEX_OF = {"bond": "the 10-year Treasury total-return index rebuilt from DGS10",
            "hy": "the high-yield excess-return index rebuilt from BAMLH0A0HYM2"}


def return_index(frame, kind: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "bond":
        days, index, _ = bond_index(frame)
        return days, index
    if kind == "hy":
        return credit_index(frame)
    return indicators.day_numbers(frame), frame["value"].to_numpy().astype(np.float64)


def _returns(sid: str, kind: str, days: np.ndarray, index: np.ndarray) -> dict:
    """Each horizon's return: a price series' from its two named closes, a rebuilt index's from the series."""
    if kind == "price":
        return {f"return_{h}_pct": price_return(sid, days, index, back, end) for h, (back, end) in HORIZONS.items()}
    return {f"return_{h}_pct": envelope.rnd(ret_pct(days, index, back, end), 2,
                                            f"percent return of {INDEX_OF[kind]} over {provenance.HORIZONS[h]}")
            for h, (back, end) in HORIZONS.items()}


def asset_momentum(sid: str, kind: str, days: np.ndarray, index: np.ndarray) -> dict:
    """One asset's figures, called inside the scope of its series."""
    out = _returns(sid, kind, days, index)
    start = indicators.index_days_ago(days, 365)
    window = index[(start or 0):]
    with np.errstate(divide="ignore", invalid="ignore"):
        daily = window[1:] / window[:-1] - 1
    daily = daily[np.isfinite(daily) & (window[:-1] > 0)]
    # annualize with the number of observations per year (about 252 for markets, 365 for bitcoin)
    vol = float(np.std(daily, ddof=1) * math.sqrt(len(daily)) * 100) if start is not None and len(daily) > 20 else None
    out["volatility_1y_pct"] = envelope.rnd(vol, 2,
                                            "annualized volatility of daily returns over the past year, percent")
    scaled = [ret / (vol * math.sqrt(years)) for h, years in SCORED.items()
              if (ret := ret_pct(days, index, *HORIZONS[h])) is not None and vol]
    out["momentum_score"] = envelope.rnd(float(np.mean(scaled)), 3, "mean of the 3-month, 6-month and 12-1 returns, "
                                         "each over the 1-year volatility scaled to its horizon") if scaled else None
    r12 = ret_pct(days, index, 365)
    out["ts_signal"] = None if r12 is None else "long" if r12 > 0 else "short"
    out["ts_strength"] = envelope.rnd(r12 / vol, 3, "12-month return over 1-year volatility") \
        if r12 is not None and vol else None
    out["as_of"] = indicators.iso_day(days[-1])
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [sid for sid, _ in ASSETS.values()])
    series_ids = [sid for sid, _ in ASSETS.values()]
    sources = envelope.data_sources(frames, series_ids)
    assets, unavailable = {}, {}
    for name, (sid, kind) in ASSETS.items():
        frame = frames.get(sid)
        if frame is None:
            unavailable[name] = f"{sid} missing"
            continue
        days, index = return_index(frame, kind)
        with provenance.about(frames, sid):
            stats = asset_momentum(sid, kind, days, index)
        stats["series"] = sid
        assets[name] = stats
        if stats["momentum_score"] is None:
            unavailable[f"{name}.momentum_score"] = "less than a year of history for volatility scaling"
        if stats["ts_signal"] is None:
            unavailable[f"{name}.ts_signal"] = "less than 12 months of history"
    ranked = sorted((n for n, s in assets.items() if s["momentum_score"] is not None),
                    key=lambda n: -assets[n]["momentum_score"])
    if not ranked and all(s["return_1m_pct"] is None for s in assets.values()):
        raise envelope.InsufficientData(f"{NAME}: no asset class has a month of history")
    scored = [ASSETS[n][0] for n in ranked]
    with provenance.about(frames, *scored, operation="rank by momentum score among the scored assets (1 = strongest)"):
        for rank, name in enumerate(ranked, 1):
            assets[name]["rank"] = envelope.count(rank)
    longs = [n for n, s in assets.items() if s["ts_signal"] == "long"]
    shorts = [n for n, s in assets.items() if s["ts_signal"] == "short"]
    risk = [n for n in RISK_ASSETS if n in assets and assets[n]["ts_signal"] is not None]
    risk_long = [n for n in risk if assets[n]["ts_signal"] == "long"]
    everyone = [ASSETS[n][0] for n in assets]
    with provenance.about(frames, *everyone):  # which assets count depends on each one's history
        counts = {"assets_ranked": envelope.count(len(ranked), "count of assets with a momentum score"),
                  "ts_long_count": envelope.count(len(longs), "count of assets with a positive 12-month return"),
                  "ts_short_count": envelope.count(len(shorts), "count of assets with a non-positive 12-month return")}
    with provenance.about(frames, *(ASSETS[n][0] for n in risk)):
        risky = {"risk_assets_with_signal": envelope.count(len(risk), "count of risk assets with a 12-month return"),
                 "risk_assets_long_count": envelope.count(len(risk_long), "count of risk assets with a positive "
                                                                          "12-month return")}
    with provenance.about(frames, *scored, operation="leader's momentum score minus the laggard's"):
        spread = envelope.rnd(assets[ranked[0]]["momentum_score"] - assets[ranked[-1]]["momentum_score"], 3) \
            if len(ranked) > 1 else None
    data = {"assets": assets, "ranking": ranked, "assets_ranked": counts["assets_ranked"],
            "leader": ranked[0] if ranked else None, "laggard": ranked[-1] if ranked else None,
            "ts_long": longs, "ts_short": shorts, "ts_long_count": counts["ts_long_count"],
            "ts_short_count": counts["ts_short_count"], **risky, "score_spread_leader_laggard": spread}
    signals = _signals(data, sources)
    summary = (f"Time-series momentum (sign of the 12-month return) is long {len(longs)} asset classes"
               + (f" ({', '.join(longs)})" if longs else "") + f" and short {len(shorts)}"
               + (f" ({', '.join(shorts)})" if shorts else "") + ".")
    if len(ranked) > 1:
        lead, lag = assets[ranked[0]], assets[ranked[-1]]
        summary += (f" Cross-sectionally, {ranked[0]} leads with a volatility-scaled score of {lead['momentum_score']} "
                    f"(12-month return {fig(lead['return_12m_pct'], '%')}) and {ranked[-1]} lags at "
                    f"{lag['momentum_score']} (12-month return {fig(lag['return_12m_pct'], '%')}); full order: "
                    f"{', '.join(ranked)}.")
    if unavailable:
        summary += f" Not available: {', '.join(unavailable)}."
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("equity_momentum", "momentum inside equities"),
                              ("crypto_momentum", "momentum across the covered coins"),
                              ("dollar_strength", "the dollar trend in detail"),
                              ("portfolio_60_40", "a balanced stock-bond portfolio"),
                              ("risk_appetite", "whether momentum comes with risk appetite")),
                          methodology=("Returns compare the last value with the last value on or before the same "
                                       "calendar date (12-1 skips the latest month). Time-series momentum is the sign "
                                       "of the 12-month return. The cross-sectional score averages the 3-month, "
                                       "6-month and 12-1 returns, each divided by the 1-year volatility of daily "
                                       "returns scaled to its horizon (vol x sqrt(years)), and ranks the assets by it. "
                                       + BOND_METHOD + " " + HY_METHOD + " Equities are the S&P 500 price "
                                       "index (dividends excluded)."),
                          unavailable=unavailable or None)


def _signals(data: dict, sources: dict) -> list[dict]:
    n, k = data["risk_assets_with_signal"], data["risk_assets_long_count"]
    out = []
    if n:
        share = k / n
        if share >= 0.75:
            direction, urgency = "bullish", "low"
        elif share <= 0.25:
            direction, urgency = "bearish", "high" if k == 0 and n >= 3 else "medium"
        else:
            direction, urgency = "neutral", "low"
        conf = envelope.degrade(0.4 + 0.4 * abs(share - 0.5) * 2 * min(1.0, n / 4), sources, essential=("SP500",))
        out.append(envelope.signal("trend_breadth", direction, conf, urgency,
                                   f"{k} of {n} risk asset classes have positive 12-month momentum"))
    if data["leader"] and data["assets_ranked"] > 1:
        leader = data["leader"]
        score = data["assets"][leader]["momentum_score"]
        defensive = leader in ("bonds", "dollar")
        direction = ("bearish" if defensive else "bullish") if score > 0 else "bearish"
        conf = envelope.degrade(0.35 + min(0.35, abs(data["score_spread_leader_laggard"]) / 8), sources,
                                essential=("SP500",))
        out.append(envelope.signal("leadership", direction, conf, "low",
                                   f"{leader} leads the cross-sectional ranking (score {score}), "
                                   f"{data['laggard']} lags"))
    if not out:
        out.append(envelope.signal("trend_breadth", "neutral", envelope.degrade(0.2, sources), "low",
                                   "too little history for 12-month and volatility-scaled momentum"))
    return out


register(Module(name=NAME, category="cross_asset", tier="S", inputs=tuple(sid for sid, _ in ASSETS.values()),
                description="Time-series and cross-sectional momentum ranking across asset classes",
                compute=compute, lookback_days=800))
