"""crypto_volatility: bitcoin realized volatility over 7 to 365 calendar days, its volatility cone and
regime, downside volatility, and the BTC/S&P 500 volatility ratio with its percentile over history."""
from __future__ import annotations

import math
from datetime import date

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, vol_cone, vol_regime
from intel.modules._crypto import rolling_vol_pct, vol_op
from intel.registry import Module, register

NAME = "crypto_volatility"
BTC, SPX = "CBBTCUSD", "SP500"
INPUTS = (BTC, SPX)
WINDOWS = (7, 30, 90, 365)  # calendar days of bitcoin returns
CONE_WINDOW, SPX_WINDOW = 30, 21  # about one month in each market: 30 calendar days, 21 trading days
MIN_CONE = 180  # fewer rolling values than half a year are too thin to rank against


def _cone_op(key: str) -> str:
    what = "the rolling 30-day realized volatility over the history, percent"
    return {"min_pct": f"lowest value of {what}", "max_pct": f"highest value of {what}"}.get(
        key, f"{key[1:].removesuffix('_pct')}th percentile of {what}")


def _btc_figures(data: dict, unavailable: dict, rets: np.ndarray, days: np.ndarray, paths: dict) -> None:
    """Bitcoin's own volatility figures, its cone and regime (called in a scope of CBBTCUSD)."""
    for n in WINDOWS:
        data[f"realized_vol_{n}d_pct"] = envelope.rnd(paths[n][-1], 2, vol_op(n))
        if data[f"realized_vol_{n}d_pct"] is None:
            unavailable[f"realized_vol_{n}d_pct"] = f"fewer than {n} daily returns"
    tail = rets[-90:]
    data["downside_vol_90d_pct"] = (envelope.rnd(math.sqrt(np.mean(np.minimum(tail, 0) ** 2)) * math.sqrt(365) * 100, 2,
                                                 "annualized (x sqrt 365) root mean square of the negative daily log "
                                                 "returns among the last 90, percent")
                                    if len(rets) >= 90 else None)
    v30, v90 = data["realized_vol_30d_pct"], data["realized_vol_90d_pct"]
    data["vol_ratio_30d_90d"] = envelope.rnd(v30 / v90, 2, "realized_vol_30d_pct / realized_vol_90d_pct") \
        if v30 is not None and v90 else None
    data["vol_trend"] = (None if data["vol_ratio_30d_90d"] is None else "rising" if data["vol_ratio_30d_90d"] > 1.25
                         else "falling" if data["vol_ratio_30d_90d"] < 0.8 else "stable")
    cone_hist = paths[CONE_WINDOW][np.isfinite(paths[CONE_WINDOW])]
    if v30 is not None and len(cone_hist) >= MIN_CONE:
        # vol_cone's keys name a quantile, not of what: each figure says so
        cone = {k: envelope.rnd(v, 2, _cone_op(k)) for k, v in vol_cone(cone_hist).items()}
        cone.update({"observations": envelope.count(len(cone_hist), "count of rolling 30-day volatility values ranked"),
                     "since": indicators.iso_day(days[np.flatnonzero(np.isfinite(paths[CONE_WINDOW]))[0]])})
        pct = indicators.percentile_rank(cone_hist, paths[CONE_WINDOW][-1])
        data["vol_cone_30d"] = cone
        data["percentile_30d_history"] = envelope.rnd(pct, 1, "percentile rank of the 30-day volatility among its "
                                                              "rolling values over the history")
        year = paths[CONE_WINDOW][-365:]
        data["percentile_30d_1y"] = envelope.rnd(indicators.percentile_rank(year, paths[CONE_WINDOW][-1]), 1,
                                                 "percentile rank of the 30-day volatility among its last 365 rolling "
                                                 "values")
        data["vol_regime"] = vol_regime(pct, "extreme")
    else:
        data["percentile_30d_history"] = data["percentile_30d_1y"] = data["vol_regime"] = None
        unavailable["vol_cone_30d"] = f"fewer than {MIN_CONE} rolling 30-day values"


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [BTC], need="all")
    btc, spx = frames.get(BTC), frames.get(SPX)
    sources = envelope.data_sources(frames, INPUTS)
    days, rets = indicators.dated_changes(btc)
    if len(rets) < WINDOWS[0]:
        raise envelope.InsufficientData(f"{NAME}: only {len(rets)} bitcoin daily returns (needs {WINDOWS[0]})")
    data: dict = {"price_usd": envelope.level(frames, BTC, 2, op="latest close"), "date": indicators.iso_day(days[-1]),
                  "history_start": btc["date"][0].isoformat()}
    unavailable: dict = {}
    paths = {n: rolling_vol_pct(rets, n) for n in WINDOWS}
    with provenance.about(frames, BTC):
        _btc_figures(data, unavailable, rets, days, paths)
    v30, v90 = data["realized_vol_30d_pct"], data["realized_vol_90d_pct"]
    # BTC/SPX: bitcoin's 30-calendar-day vol (x sqrt 365) over the S&P 500's 21-trading-day vol (x sqrt 252),
    # read on the S&P 500's dates so both cover about the same month
    ratio_block = None
    if spx is not None:
        sdays, srets = indicators.dated_changes(spx)
        spx_path = rolling_vol_pct(srets, SPX_WINDOW, 252)
        common, ib, is_ = np.intersect1d(days, sdays, return_indices=True)
        ratio = paths[CONE_WINDOW][ib] / spx_path[is_]
        ok = np.isfinite(ratio)
        if ok.any() and np.isfinite(spx_path[-1]):
            hist = ratio[ok]
            with provenance.about(frames, SPX):
                spx_vol = envelope.rnd(spx_path[-1], 2, vol_op(SPX_WINDOW, 252))
            # the ratio's history ends at the last common date: a later close of either is not in it
            end = date.fromisoformat(indicators.iso_day(common[ok][-1]))
            with provenance.about_inputs((provenance.Input(BTC, through=end), provenance.Input(SPX, through=end))):
                ratio_block = {
                    "spx_realized_vol_21d_pct": spx_vol,
                    "btc_spx_vol_ratio": envelope.rnd(hist[-1], 2,
                                                      "BTC 30-day over S&P 500 21-day realized volatility, "
                                                      "on their last common date"),
                    "as_of": indicators.iso_day(common[ok][-1]),
                    "ratio_median_history": envelope.rnd(np.median(hist), 2,
                                                         "median of the BTC/S&P 500 volatility ratio "
                                                         "over the common dates"),
                    "ratio_percentile_history": envelope.rnd(indicators.percentile_rank(hist, hist[-1]), 1,
                                                             "percentile rank of the BTC/S&P 500 volatility ratio over "
                                                             "the common dates") if len(hist) >= MIN_CONE else None,
                    "observations": envelope.count(len(hist), "count of common dates with both volatilities")}
            data["btc_vs_spx"] = ratio_block
    if ratio_block is None:
        unavailable["btc_vs_spx"] = f"{SPX} missing" if spx is None else "too few common BTC and S&P 500 dates"

    regime, trend, pct = data["vol_regime"], data["vol_trend"], data["percentile_30d_history"]
    if regime is None:
        direction, urgency, conf = "neutral", "low", 0.3
        reason = f"bitcoin 30-day realized volatility {fig(v30, '%')}; too little history to rank it"
    else:
        direction = "bearish" if regime in ("elevated", "extreme") else "neutral"
        urgency = ("high" if trend == "rising" else "medium") if regime == "extreme" else \
                  ("medium" if regime == "elevated" and trend == "rising" else "low")
        conf = 0.45 + abs(pct - 50) / 125
        reason = (f"bitcoin 30-day realized volatility {v30}% at the {pct} percentile of its history "
                  f"({regime}, {fig(trend)})")
    signals = [envelope.signal("btc_volatility_regime", direction, envelope.degrade(conf, sources, [BTC]), urgency,
                               reason)]
    if ratio_block and ratio_block["ratio_percentile_history"] is not None:
        rp = ratio_block["ratio_percentile_history"]
        if rp >= 90 or rp <= 10:
            signals.append(envelope.signal(
                "btc_spx_vol_ratio", "bearish" if rp >= 90 else "neutral", envelope.degrade(0.45, sources, INPUTS),
                "low",
                f"bitcoin volatility is {ratio_block['btc_spx_vol_ratio']} times the S&P 500's, "
                f"{'high' if rp >= 90 else 'low'} for the pair (percentile {rp})"))

    summary = (f"Bitcoin realized volatility (annualised) is {fig(data['realized_vol_7d_pct'], '%')} "
               "on a 7-day window, "
               f"{fig(v30, '%')} on a 30-day and {fig(v90, '%')} on a 90-day window, trend {fig(trend)}.")
    if regime:
        summary += (f" The 30-day figure sits at the {pct} percentile of its history since "
                    f"{data['vol_cone_30d']['since']} "
                    f"(median {data['vol_cone_30d']['p50_pct']}%): a {regime} volatility regime.")
    if ratio_block:
        summary += (f" Against the S&P 500's 21-day volatility of {ratio_block['spx_realized_vol_21d_pct']}%, bitcoin "
                    f"is {ratio_block['btc_spx_vol_ratio']} times as volatile (historical median "
                    f"{ratio_block['ratio_median_history']} times).")
    else:
        summary += f" The BTC/S&P 500 volatility ratio is not available ({unavailable['btc_vs_spx']})."
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("bitcoin", "bitcoin's price, trend and drawdown"),
                              ("crypto_risk", "volatility spikes with drawdowns for BTC and ETH"),
                              ("cross_asset_volatility", "realized volatility across asset classes"),
                              ("equity_volatility", "the S&P 500 side of the ratio"),
                              ("vix", "implied equity volatility")),
                          methodology="Realized volatility is the sample standard deviation of daily log returns over "
                                      "n calendar days, annualised with 365 (bitcoin trades every day); downside "
                                      "volatility uses the root mean square of negative returns only. The cone and "
                                      "regime rank the rolling 30-day figure in its own history (low below the 25th "
                                      "percentile, elevated from the 75th, extreme from the 90th). The BTC/S&P 500 "
                                      "ratio divides bitcoin's 30-day volatility by the S&P 500's 21-trading-day "
                                      "volatility (annualised with 252) on the S&P 500's dates.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="crypto", tier="S", inputs=INPUTS,
                description="Bitcoin realized vol, vol cone percentile, regime and BTC/S&P 500 vol ratio",
                compute=compute, lookback_days=3700))
