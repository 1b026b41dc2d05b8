"""stock_bond_correlation: rolling correlation of S&P 500 returns with 10-year Treasury returns, its regime
(positive = inflation regime, bonds fall with stocks; negative = bonds hedge equities) and persistence."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.correlations import rolling_corr
from intel.frames import Frames
from intel.modules._common import fig
from intel.modules._cross_asset import BOND_METHOD, align, bond_index
from intel.registry import Module, register

NAME = "stock_bond_correlation"
INPUTS = ("SP500", "DGS10")
WINDOWS = {"21d": 21, "63d": 63, "252d": 252}
REGIME_BAND = 0.2  # |correlation| below this is a transition zone
HISTORY = 2520  # ten years of the 63-day correlation for its percentile and long-run mean
PAIR = "correlation of daily S&P 500 log returns and 10-year Treasury total returns (from DGS10)"


def regime_of(r: float) -> str:
    if r >= REGIME_BAND:
        return "positive"
    return "negative" if r <= -REGIME_BAND else "transition"


MEANING = {"positive": "an inflation regime, where bonds fall with stocks and do not hedge",
           "negative": "a growth regime, where bonds rally when stocks fall and hedge equities",
           "transition": "no stable sign, so bonds give little hedge either way"}


def _figures(days, stock, bond_ret, dy, rolling, now: float) -> dict:
    """The payload's figures, all from SP500 and DGS10 on their common dates (called inside their scope)."""
    data: dict = {"window_days": envelope.constant(63, "fixed parameter: correlation window in trading days")}
    for key, w in WINDOWS.items():
        data[f"correlation_{key}"] = envelope.rnd(rolling_corr(stock, bond_ret, w)[-1], 3, f"{w}-day {PAIR}") \
            if len(stock) >= w else None
    regime = regime_of(now)
    finite = np.flatnonzero(np.isfinite(rolling))
    hist = rolling[finite]
    positive = hist > 0
    flip = indicators.run_start(positive if now > 0 else ~positive)
    beta = np.cov(stock[-63:], bond_ret[-63:])[0, 1] / np.var(bond_ret[-63:], ddof=1)
    long = len(hist) >= 252
    data.update({
        "regime": regime, "regime_meaning": MEANING[regime],
        "correlation_with_yield_changes_63d": envelope.rnd(rolling_corr(stock, dy, 63)[-1], 3,
                                                           "63-day correlation of daily S&P 500 log returns and DGS10 "
                                                           "changes"),
        "change_3m": envelope.rnd(now - rolling[-64], 3, f"63-day {PAIR} now minus 63 trading days earlier")
        if len(rolling) >= 126 else None,
        "percentile_10y": envelope.rnd(indicators.percentile_rank(hist, now), 1,
                                       f"percentile rank of the 63-day {PAIR} among its past values (up to 10 years)")
        if long else None,
        "mean_10y": envelope.rnd(float(hist.mean()), 3,
                                 f"mean of the 63-day {PAIR} over up to 10 years") if long else None,
        "share_positive_1y_pct": envelope.rnd(float(positive[-252:].mean()) * 100, 1,
                                              f"percent of the past 252 days with a positive 63-day {PAIR}")
        if long else None,
        "sign_since": indicators.iso_day(days[finite[flip]]) if flip is not None else None,
        "sign_days": envelope.count(int(len(hist) - flip), "trading days since the 63-day correlation took its sign")
        if flip is not None else None,
        "equity_beta_to_bonds_63d": envelope.rnd(beta, 2, "63-day beta of S&P 500 log returns to 10-year Treasury "
                                                          "total returns"),
        "history_years_used": envelope.rnd(len(hist) / 252, 1,
                                           "years of 63-day correlation history used (252 days a year)"),
    })
    return data


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS, need="all")
    sources = envelope.data_sources(frames, INPUTS)
    spx, dgs = frames.get("SP500"), frames.get("DGS10")
    bdays, bond, _ = bond_index(dgs)
    days, s, b = align((indicators.day_numbers(spx), spx["value"].to_numpy()), (bdays, bond))
    days, s, b = days[-HISTORY - 64:], s[-HISTORY - 64:], b[-HISTORY - 64:]
    y = align((indicators.day_numbers(dgs), dgs["value"].to_numpy()), (days, days))[1]
    stock, bond_ret, dy = indicators.changes(s, "log"), indicators.changes(b, "log"), np.diff(y) * 100
    if len(stock) < 63:
        raise envelope.InsufficientData(f"{NAME}: only {len(stock)} common daily returns (needs 63)")
    days = days[1:]
    rolling = rolling_corr(stock, bond_ret, 63)
    now = float(rolling[-1])
    if not np.isfinite(now):
        raise envelope.InsufficientData(f"{NAME}: no variation in the last 63 days")
    with provenance.about(frames, *INPUTS):
        data = _figures(days, stock, bond_ret, dy, rolling, now)
    regime = data["regime"]
    unavailable = {k: "fewer than 252 daily returns" for k in ("correlation_252d", "percentile_10y", "mean_10y",
                                                                 "share_positive_1y_pct") if data[k] is None}
    if data["change_3m"] is None:
        unavailable["change_3m"] = "fewer than 126 daily returns"
    signals = _signals(data, now, sources)
    summary = (f"Over the last 63 trading days the S&P 500 and the 10-year Treasury total return correlate at "
               f"{data['correlation_63d']} ({regime}: {MEANING[regime]}), against {fig(data['correlation_21d'])} "
               f"over one month and {fig(data['correlation_252d'])} over one year.")
    if data["sign_since"]:
        summary += (f" The 63-day correlation has been {'positive' if now > 0 else 'negative'} since "
                    f"{data['sign_since']} ({int(data['sign_days'])} trading days)")
        summary += (f", at the {data['percentile_10y']} percentile of the past {data['history_years_used']} years."
                    if data["percentile_10y"] is not None else ".")
    if unavailable:
        summary += f" Not enough history for: {', '.join(unavailable)}."
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("portfolio_60_40", "what the correlation does to a balanced portfolio"),
                              ("inflation", "the inflation backdrop that drives a positive correlation"),
                              ("correlations", "the full cross-asset correlation matrix"),
                              ("equity_bond_relative", "relative returns of stocks and bonds"),
                              ("treasury_yields", "the yield moves behind bond returns")),
                          methodology=("Pearson correlation of daily S&P 500 log returns with daily 10-year Treasury "
                                       "total returns on common dates. " + BOND_METHOD + f" The regime is positive "
                                       f"above {REGIME_BAND}, negative below -{REGIME_BAND}, transition between."),
                          unavailable=unavailable or None)


def _signals(data: dict, now: float, sources: dict) -> list[dict]:
    r63, regime = data["correlation_63d"], data["regime"]
    if regime == "positive":
        direction, urgency = "bearish", "high" if now >= 0.5 else "medium"
        reason = f"stock-bond correlation {r63}: bonds are not hedging equities"
    elif regime == "negative":
        direction, urgency, reason = "bullish", "low", f"stock-bond correlation {r63}: bonds hedge equities"
    else:
        direction, urgency, reason = "neutral", "low", f"stock-bond correlation {r63} in the transition zone"
    persistence = min(1.0, (data["sign_days"] or 0) / 252)
    confidence = envelope.degrade(0.4 + min(0.3, abs(now) / 2) + 0.2 * persistence, sources, essential=INPUTS)
    out = [envelope.signal("diversification", direction, confidence, urgency, reason)]
    if data["sign_days"] is not None and data["sign_days"] <= 21 and abs(now) >= 0.1:
        out.append(envelope.signal("correlation_flip", "neutral", envelope.degrade(0.5, sources, essential=INPUTS),
                                   "medium",
                                   f"the 63-day correlation turned {'positive' if now > 0 else 'negative'} on "
                                   f"{data['sign_since']}, {int(data['sign_days'])} trading days ago"))
    return out


register(Module(name=NAME, category="cross_asset", tier="S", inputs=INPUTS,
                description="Rolling stock-bond correlation and its regime (positive = inflation regime)",
                compute=compute, lookback_days=3800))
