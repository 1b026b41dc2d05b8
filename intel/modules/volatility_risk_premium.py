"""volatility_risk_premium: VIX (implied) minus S&P 500 realized volatility, in vol points.

Two premiums: the trailing one (today's VIX against the last 21 sessions' realized volatility, known
today) and the forward one (VIX on a past date against the realized volatility of the 21 sessions that
followed it, known only once those sessions have passed), with percentiles and a hit rate."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import (
    DECADE_DAYS,
    YEAR_DAYS,
    annualize,
    dated_changes,
    day_numbers,
    history_years,
    in_window,
    iso_day,
    rolling_std,
)
from intel.modules._common import fig
from intel.registry import Module, register

NAME = "volatility_risk_premium"
VIX, SPX = "VIXCLS", "SP500"
WINDOW = 21  # sessions: VIX quotes 30 calendar days of implied volatility, about 21 trading days


def _obs(series_id: str, day_number, value) -> tuple:
    return series_id, np.datetime64(int(day_number), "D").astype(object), float(value)


def _trailing(vrp, days, now_vrp: float, now_vix: float, now_rv: float, rv63) -> dict:
    """Today's premium and its history (inside a scope naming VIX and the S&P 500)."""
    decade, year = in_window(days, DECADE_DAYS), in_window(days, YEAR_DAYS)
    return {
        "vrp_21d_pts": envelope.rnd(now_vrp, 2, "VIX minus 21-day realized S&P 500 volatility, vol points"),
        "vix_to_realized_ratio": envelope.rnd(now_vix / now_rv, 2, "VIX over 21-day realized S&P 500 volatility")
        if now_rv else None,
        "vrp_vs_63d_pts": envelope.rnd(now_vix - rv63, 2, "VIX minus 63-day realized S&P 500 volatility, vol points")
        if rv63 is not None else None,
        "percentile_1y": envelope.rnd(indicators.percentile_rank(vrp[year], now_vrp), 1,
                                      "percentile rank of the trailing premium within the past year"),
        "percentile_10y": envelope.rnd(indicators.percentile_rank(vrp[decade], now_vrp), 1,
                                       "percentile rank of the trailing premium within 10 years"),
        "zscore_10y": envelope.rnd(indicators.zscore(vrp[decade], now_vrp), 2,
                                   "z-score of the trailing premium over 10 years"),
        "mean_10y_pts": envelope.rnd(vrp[decade].mean(), 2, "mean trailing premium over 10 years"),
        "median_10y_pts": envelope.rnd(np.median(vrp[decade]), 2, "median trailing premium over 10 years"),
        "negative_share_10y_pct": envelope.rnd(float((vrp[decade] < 0).mean()) * 100, 1,
                                               "percent of the 10 years' days with a negative trailing premium"),
        "history_years": envelope.rnd(history_years(days), 1, "years of shared VIX and S&P 500 history used"),
        "observations": envelope.count(int(decade.sum()), "count of shared days over 10 years"),
    }


def _forward(frames: Frames, days, done, implied, forward_rv) -> dict:
    """The last complete forward premium (VIX then against the 21 sessions realized after) and its history."""
    fvrp = implied[done] - forward_rv[done]
    last = int(np.flatnonzero(done)[-1])
    with provenance.about(frames, SPX):
        realized = envelope.rnd(forward_rv[last], 2,
                                "annualized sd of the 21 S&P 500 daily log returns after the date, percent")
    with provenance.about(frames, VIX, SPX):
        return {
            "last_complete_date": iso_day(days[last]),
            "vix_then": envelope.observed_level(_obs(VIX, days[last], implied[last]), 2,
                                                "VIX on the last complete date"),
            "realized_vol_next_21d_pct": realized,
            "vrp_21d_pts": envelope.rnd(implied[last] - forward_rv[last], 2,
                                        "VIX minus the realized S&P 500 volatility of the next 21 sessions, vol "
                                        "points"),
            "percentile_10y": envelope.rnd(indicators.percentile_rank(fvrp, implied[last] - forward_rv[last]), 1,
                                           "percentile rank of the forward premium within 10 years"),
            "mean_10y_pts": envelope.rnd(fvrp.mean(), 2, "mean forward premium over 10 years"),
            "median_10y_pts": envelope.rnd(np.median(fvrp), 2, "median forward premium over 10 years"),
            "implied_above_realized_share_pct": envelope.rnd(float((fvrp > 0).mean()) * 100, 1,
                                                             "percent of days VIX exceeded the next 21 sessions' "
                                                             "realized volatility"),
            "sample_start": iso_day(days[done][0]),
            "observations": envelope.count(int(done.sum()), "count of days with a complete forward premium"),
        }


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [VIX, SPX], need="all")
    vix, spx = frames.get(VIX), frames.get(SPX)
    sources = envelope.data_sources(frames, [VIX, SPX])
    ret_days, rets = dated_changes(spx)
    if len(rets) < WINDOW:
        raise InsufficientData(f"{NAME}: needs {WINDOW + 1} S&P 500 closes, has {spx.height}")
    # rv[j]: realized vol of the 21 returns ending at return j (annualised, vol points)
    rv = annualize(rolling_std(rets, WINDOW), 252)
    # forward realized vol seen from return j: the 21 returns after it, i.e. rv[j + 21]
    fwd = np.full(len(rv), np.nan)
    fwd[:-WINDOW] = rv[WINDOW:]
    common, iv, ir = np.intersect1d(day_numbers(vix), ret_days, return_indices=True)
    implied = vix["value"].to_numpy()[iv]
    trailing_rv, forward_rv = rv[ir], fwd[ir]
    ok = np.isfinite(trailing_rv)
    if not ok.any():
        raise InsufficientData(f"{NAME}: VIX and the S&P 500 share no date with 21 sessions of returns")
    days, implied, trailing_rv, forward_rv = common[ok], implied[ok], trailing_rv[ok], forward_rv[ok]
    vrp = implied - trailing_rv
    now_vrp, now_vix, now_rv = float(vrp[-1]), float(implied[-1]), float(trailing_rv[-1])
    decade = in_window(days, DECADE_DAYS)
    rv63 = indicators.realized_vol(spx["value"].to_numpy(), 63)
    with provenance.about(frames, SPX):
        realized = {"realized_vol_21d_pct": envelope.rnd(now_rv, 2, "annualized sd of the 21 S&P 500 daily log returns "
                                                                    "to the premium's date, percent"),
                    "realized_vol_63d_pct": envelope.rnd(rv63, 2, "annualized sd of the last 63 S&P 500 daily log "
                                                                  "returns, percent")}
    with provenance.about(frames, VIX, SPX, operation="VIX minus 21-day realized S&P 500 volatility, vol points"):
        data = {"date": iso_day(days[-1]),
                "vix": envelope.observed_level(_obs(VIX, days[-1], now_vix), 2,
                                               "VIX on the premium's date (last shared with the S&P 500)"),
                **realized, "trailing": _trailing(vrp, days, now_vrp, now_vix, now_rv, rv63)}
    done = np.isfinite(forward_rv) & decade
    unavailable = None
    if done.any():
        data["forward"] = _forward(frames, days, done, implied, forward_rv)
    else:
        unavailable = {"forward": "fewer than 21 sessions have followed any date with a trailing premium"}

    pct = data["trailing"]["percentile_10y"]
    pts = data["trailing"]["vrp_21d_pts"]
    if now_vrp < 0:
        direction, urgency = "bearish", "high" if now_vrp < -5 else "medium"
        # a premium below zero that rounds to zero is not said to exceed
        reason = f"realized volatility {data['realized_vol_21d_pct']} " + \
            (f"exceeds VIX {data['vix']} ({pts} pts)" if pts < 0 else f"matches VIX {data['vix']} (premium {pts} pts)")
    elif pct >= 75:
        direction, urgency = "bullish", "low"
        reason = f"VIX {data['vix']} sits {pts} pts above realized volatility (percentile {pct}): a rich premium"
    elif pct <= 20:
        direction, urgency = "neutral", "medium"
        reason = f"thin premium of {pts} pts (percentile {pct}): little cushion before realized overtakes implied"
    else:
        direction, urgency, reason = "neutral", "low", f"premium of {pts} pts, percentile {pct}"
    confidence = envelope.degrade(0.5 + abs(pct - 50) / 125, sources, essential=[VIX, SPX])
    if "forward" not in data:
        confidence *= 0.9
    signals = [envelope.signal("volatility_risk_premium", direction, confidence, urgency, reason)]
    summary = (f"VIX at {data['vix']} against 21-day realized S&P 500 volatility of {data['realized_vol_21d_pct']}% "
               f"leaves a trailing premium of {pts} vol points, at the {fig(pct)} percentile of its 10-year "
               f"history (mean {data['trailing']['mean_10y_pts']}).")
    if "forward" in data:
        f = data["forward"]
        summary += (f" The forward premium, which compares VIX with the 21-session volatility "
                    f"realized afterwards, was {f['vrp_21d_pts']} points for the VIX of "
                    f"{f['last_complete_date']}; implied "
                    f"exceeded what followed on {f['implied_above_realized_share_pct']}% of days since "
                    f"{f['sample_start']}.")
    else:
        summary += " Too little history has passed to measure the forward premium."
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable,
                          related_modules=envelope.related(
                              ("vix", "the implied side: VIX level and spikes"),
                              ("equity_volatility", "the realized side: vol cone and regime"),
                              ("vix_term_structure", "whether the curve confirms the premium"),
                              ("volatility_regime", "which VIX state the market is in"),
                              ("tail_risk", "what the premium insures against")),
                          methodology="Realized volatility is the sample standard deviation of 21 daily S&P 500 log "
                                      "returns annualised with 252 days, in vol points. Trailing premium: VIX minus "
                                      "the past 21 sessions' realized volatility (known today). Forward premium: VIX "
                                      "on a date minus the realized volatility of the next 21 sessions (known only "
                                      "21 sessions later). Percentiles count observations at or below the value.")


register(Module(name=NAME, category="volatility", tier="S", inputs=(VIX, SPX),
                description="Implied minus realized volatility (trailing and forward), its percentile",
                compute=compute, lookback_days=3700))
