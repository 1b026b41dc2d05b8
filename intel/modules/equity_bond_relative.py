"""equity_bond_relative: S&P 500 price return against a constant-maturity 10-year Treasury return built
from the DGS10 yield, the trend of their ratio, and an earnings-free "yield gap proxy" (trailing 1-year
S&P 500 price return minus the 10-year yield: there are no earnings data, so it is not an earnings yield)."""
from __future__ import annotations

from datetime import timedelta

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, last_crosses
from intel.registry import Module, register

NAME = "equity_bond_relative"
EQUITY, YIELD = "SP500", "DGS10"
HORIZONS = {"1m": 21, "3m": 63, "6m": 126, "1y": 252}  # common trading days
YEAR, DECADE = 252, 2520
BOND_METHOD = ("10-year Treasury total-return proxy: each day, carry of the prior yield / 252 minus the modified "
               "duration of a par 10-year semi-annual bond at the prior yield times the yield change, plus "
               "half its convexity times the squared change; no coupon-roll or curve-roll effects.")
GAP_DEFINITION = ("trailing 1-year S&P 500 price return (no dividends) minus the current 10-year Treasury "
                  "yield, in percentage points; a momentum-versus-yield proxy, NOT an earnings yield gap "
                  "(no earnings data are used)")


def par_duration_convexity(y: np.ndarray, years: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """Modified duration and convexity (in years, years^2) of a par bond paying semi-annual coupons at
    yield y (a fraction), from the closed-form price sum over its 2*years cash flows."""
    y = np.maximum(np.asarray(y, dtype=float), 1e-6)
    k = np.arange(1, int(2 * years) + 1)[:, None]
    c, v = y / 2, 1.0 / (1.0 + y / 2)
    flows = np.where(k == k[-1], 1.0 + c, c) * v ** k  # present values of the cash flows, price = 1
    price = flows.sum(axis=0)
    t = k / 2
    mod_duration = (t * flows).sum(axis=0) / price * v
    convexity = (t * (t + 0.5) * flows).sum(axis=0) / price * v ** 2
    return mod_duration, convexity


def bond_index(yields_pct: np.ndarray) -> np.ndarray:
    """Cumulative total-return index (start 100) of the 10-year proxy from daily yields in percent."""
    y = yields_pct / 100
    dur, cvx = par_duration_convexity(y[:-1])
    dy = np.diff(y)
    daily = y[:-1] / 252 - dur * dy + 0.5 * cvx * dy ** 2
    return 100 * np.concatenate([[1.0], np.cumprod(1.0 + daily)])


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [EQUITY, YIELD], need="all")
    sources = envelope.data_sources(frames, [EQUITY, YIELD])
    joined = frames.get(EQUITY).join(frames.get(YIELD), on="date", how="inner", suffix="_y").sort("date")
    if joined.height < 2:
        raise envelope.InsufficientData(f"{NAME}: fewer than two days with both {EQUITY} and {YIELD}")
    dates = joined["date"]
    spx, yld = joined["value"].to_numpy(), joined["value_y"].to_numpy()
    bond = bond_index(yld)
    ratio = spx / bond
    n = len(spx)
    unavailable = {}
    rel = {}
    # figures of the joined history rest on each series through the last common day, not its own last day
    common = lambda *ids: provenance.about_inputs(tuple(provenance.Input(s, through=dates[-1]) for s in ids))  # noqa: E731
    spx_at = lambda i: (EQUITY, dates[i], float(spx[i]))  # noqa: E731  (a close on a common day, named)
    for h, k in HORIZONS.items():
        if n > k:
            e, b = (spx[-1] / spx[-1 - k] - 1) * 100, (bond[-1] / bond[-1 - k] - 1) * 100
            rel[h] = {"equity_return_pct": envelope.pct_change(spx_at(-1), spx_at(-1 - k), 2,
                                                               f"S&P 500 price return over {k} common trading days, "
                                                               "percent")}
            with common(YIELD):
                rel[h]["bond_return_pct"] = envelope.rnd(b, 2, f"10-year Treasury proxy return over {k} common trading "
                                                               "days, built from DGS10 (see methodology), percent")
            with common(EQUITY, YIELD):
                rel[h]["relative_return_pp"] = envelope.rnd(e - b, 2,
                                                            f"S&P 500 minus 10-year Treasury proxy return over "
                                                            f"{k} common trading days, percentage points")
        else:
            unavailable[f"relative_{h}"] = f"needs {k + 1} common days, have {n}"
    sma50, sma200 = indicators.sma(ratio, 50), indicators.sma(ratio, 200)
    golden, death = last_crosses(dates, sma50, sma200)
    # the ratio's level depends on where the bond index starts (100 at the first common day): only its
    # distance to its own averages is reported
    with common(EQUITY, YIELD):
        trend = {"ratio_vs_sma50_pct": envelope.rnd((ratio[-1] / sma50[-1] - 1) * 100, 2, "percent distance of the "
                                                    "stock-to-bond ratio from its 50-day average"),
                 "ratio_vs_sma200_pct": envelope.rnd((ratio[-1] / sma200[-1] - 1) * 100, 2, "percent distance of the "
                                                     "stock-to-bond ratio from its 200-day average"),
                 "last_stocks_over_bonds_cross": golden, "last_bonds_over_stocks_cross": death}
    if np.isfinite(sma200[-1]):
        trend["state"] = ("stocks_leading" if ratio[-1] > sma50[-1] > sma200[-1] else
                          "bonds_leading" if ratio[-1] < sma50[-1] < sma200[-1] else "mixed")
    elif np.isfinite(sma50[-1]):
        trend["state"] = "stocks_leading" if ratio[-1] > sma50[-1] else "bonds_leading"
    else:
        trend["state"] = "undetermined"
        unavailable["relative_trend"] = f"needs 50 common days, have {n}"

    gap = {"definition": GAP_DEFINITION}
    if n > YEAR:
        series_gap = (spx[YEAR:] / spx[:-YEAR] - 1) * 100 - yld[YEAR:]
        window = series_gap[-DECADE:]
        with common(EQUITY, YIELD):
            gap.update({"value_pp": envelope.rnd(series_gap[-1], 2, "trailing 252-day S&P 500 price return minus the "
                                                                    "10-year yield, percentage points"),
                        "equity_return_1y_pct": envelope.pct_change(spx_at(-1), spx_at(-1 - YEAR), 2,
                                                                    f"S&P 500 price return over {YEAR} common trading "
                                                                    "days, percent"),
                        "percentile": envelope.rnd(indicators.percentile_rank(window, series_gap[-1]), 1,
                                                   "percentile rank of the yield gap proxy in its own daily history"),
                        "zscore": envelope.rnd(indicators.zscore(window, series_gap[-1]), 2,
                                               "z-score of the yield gap proxy in its own daily history"),
                        "history_start": dates[-len(window)].isoformat(),
                        "history_days": envelope.count(len(window), "common trading days in the gap's history")})
    else:
        unavailable["yield_gap_proxy"] = f"needs {YEAR + 1} common days, have {n}"
    yield_frame = frames.get(YIELD)
    # the 1-month change runs on DGS10's own dates, from its last observation
    base = envelope.obs_on_or_before(yield_frame, YIELD, yield_frame["date"][-1] - timedelta(days=30))
    data = {"date": dates[-1].isoformat(),
            "sp500": envelope.observed_level(spx_at(-1), 2, "S&P 500 close on the last common day"),
            "yield_10y_pct": envelope.observed_level((YIELD, dates[-1], float(yld[-1])), 2,
                                                     "DGS10 on the last common day"),
            "yield_change_1m_bp": envelope.difference(envelope.last_obs(frames, YIELD), base, 1,
                                                      op="change of DGS10 from "
                                                      "its value on or before 30 days earlier, bp") if base else None}
    with common(YIELD):
        data["bond_modified_duration_years"] = envelope.rnd(par_duration_convexity(yld[-1:] / 100)[0][0], 2,
                                                            "modified duration of a par 10-year bond at the yield")
    with common(EQUITY, YIELD):
        data.update({"relative_returns": rel, "relative_trend": trend, "yield_gap_proxy": gap,
                     "common_days_used": envelope.count(n, "days with both an S&P 500 close and a 10-year yield")})
    signals = _signals(data, sources)
    r3 = rel.get("3m", {})
    summary = (f"Over three months the S&P 500 returned {fig(r3.get('equity_return_pct'), '%')} against "
               f"{fig(r3.get('bond_return_pct'), '%')} for a 10-year Treasury proxy, a relative return of "
               f"{fig(r3.get('relative_return_pp'), ' pp')}; the stock-to-bond ratio is "
               f"{fig(trend['ratio_vs_sma200_pct'], '%')} from its 200-day average "
               f"({trend['state'].replace('_', ' ')}). The 10-year yield is {data['yield_10y_pct']}% "
               f"({_month_move(data['yield_change_1m_bp'])}).")
    if "value_pp" in gap:
        summary += (f" The yield gap proxy (trailing one-year price return minus the 10-year yield, not an "
                    f"earnings yield) is {gap['value_pp']} pp, at the {fig(gap['percentile'])} percentile of "
                    f"its history.")
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("stock_bond_correlation", "whether stocks and bonds still diversify"),
                              ("portfolio_60_40", "the balanced portfolio built from the same two assets"),
                              ("treasury_yields", "the 10-year yield in the context of the curve"),
                              ("equity_indices", "the S&P 500 trend on its own"),
                              ("real_yields", "real yields that compete with equities")),
                          methodology=BOND_METHOD + " Returns are over common trading days (21, 63, 126, 252). "
                                      "The relative trend compares the stock-to-bond ratio with its 50 and 200-day "
                                      "averages. Yield gap proxy: " + GAP_DEFINITION + "; its percentile and z-score "
                                      "are against up to ten years of its own daily history.",
                          unavailable=unavailable or None)


def _month_move(bp) -> str:
    """The yield's 1-month change for a sentence: no sign or direction put on a zero."""
    return "unchanged over a month" if bp == 0 else f"{fig(bp, ' bp')} over a month"


def _signals(d: dict, sources: dict) -> list[dict]:
    trend, out = d["relative_trend"], []
    dist = trend["ratio_vs_sma200_pct"]
    direction = {"stocks_leading": "bullish", "bonds_leading": "bearish"}.get(trend["state"], "neutral")
    conf = envelope.degrade(0.45 + min(0.35, abs(dist or 0) / 30), sources, essential=[EQUITY, YIELD])
    out.append(envelope.signal("relative_trend", direction, conf, "low",
                               f"stock-to-bond ratio {fig(dist, '%')} from its 200-day average, "
                               f"{trend['state'].replace('_', ' ')}"))
    change = d["yield_change_1m_bp"]
    if change is not None:
        # a fast rise in the 10-year yield raises the hurdle for equities and hits the bond leg too
        if change >= 40:
            direction, urgency = "bearish", "high" if change >= 75 else "medium"
        elif change <= -40:
            direction, urgency = "bullish", "low"
        else:
            direction, urgency = "neutral", "low"
        out.append(envelope.signal("rate_pressure", direction,
                                   envelope.degrade(0.4 + min(0.4, abs(change) / 200), sources, essential=[YIELD]),
                                   urgency,
                                   f"10-year yield moved {change} bp over a month to {d['yield_10y_pct']}%" if change
                                   else f"10-year yield unchanged over a month at {d['yield_10y_pct']}%"))
    return out


register(Module(name=NAME, category="equities", tier="S", inputs=(EQUITY, YIELD),
                description="Stocks-vs-bonds relative return, earnings-free yield gap proxy, relative trend",
                compute=compute, lookback_days=3700))
