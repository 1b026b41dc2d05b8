"""portfolio_60_40: a 60% S&P 500 / 40% 10-year Treasury portfolio rebalanced daily: returns 1m..3y,
volatility, drawdowns, and how much the bond leg diversifies the equity leg."""
from __future__ import annotations

import math

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, pct_word
from intel.modules._cross_asset import BOND_METHOD, align, bond_index, price_return, ret_pct
from intel.registry import Module, register

NAME = "portfolio_60_40"
INPUTS = ("SP500", "DGS10")
W_EQ, W_BOND = 0.6, 0.4
HORIZONS = {"1m": 30, "3m": 91, "1y": 365, "3y": 1095}
YEAR = 252
PORTFOLIO = "the daily-rebalanced 60/40 portfolio"
BOND = "the 10-year Treasury total-return index rebuilt from DGS10"


def _returns(days, index, what: str, price: str | None = None) -> dict:
    """Returns of `what` over each horizon, inside the scope of the series it rests on; a price series' (named
    by `price`) from its two named closes."""
    if price:
        out = {f"return_{h}_pct": price_return(price, days, index, d) for h, d in HORIZONS.items()}
    else:
        out = {f"return_{h}_pct": envelope.rnd(ret_pct(days, index, d), 2,
                                               f"percent return of {what} over {provenance.HORIZONS[h]}")
               for h, d in HORIZONS.items()}
    r3 = ret_pct(days, index, HORIZONS["3y"])
    out["return_3y_annualized_pct"] = envelope.rnd(((1 + r3 / 100) ** (1 / 3) - 1) * 100, 2,
                                                   f"3-year percent return of {what}, annualized") \
        if r3 is not None else None
    return out


def _vol(r: np.ndarray) -> float | None:
    return float(np.std(r, ddof=1) * math.sqrt(YEAR) * 100) if len(r) >= 2 else None


def _max_dd(days, index, cal_days) -> float | None:
    start = indicators.index_days_ago(days, cal_days)
    if start is None:
        return None
    return float(indicators.drawdown(index[start:]).min() * 100)


def _start(days, cal_days) -> int:
    """First index of the window of cal_days calendar days (the whole history when shorter)."""
    idx = indicators.index_days_ago(days, cal_days)
    return 0 if idx is None else idx


def _risk(days, port, rp, vol_p, equity_vol, bond_vol) -> dict:
    """The portfolio's volatility and drawdowns (inside the scope of both legs' series)."""
    return {
        "volatility_63d_pct": envelope.rnd(_vol(rp[-63:]), 2,
                                           f"annualized volatility of the daily returns of {PORTFOLIO} "
                                           "over 63 days, percent") if len(rp) >= 63 else None,
        "volatility_1y_pct": envelope.rnd(vol_p, 2, f"annualized volatility of the daily returns of {PORTFOLIO} over "
                                                    "the past year, percent"),
        "equity_volatility_1y_pct": equity_vol, "bond_volatility_1y_pct": bond_vol,
        "max_drawdown_1y_pct": envelope.rnd(_max_dd(days, port, 365), 2,
                                            f"deepest drawdown of {PORTFOLIO} over 1 year"),
        "max_drawdown_3y_pct": envelope.rnd(_max_dd(days, port, 1095), 2,
                                            f"deepest drawdown of {PORTFOLIO} over 3 years"),
        "drawdown_from_high_pct": envelope.rnd(float(indicators.drawdown(port[_start(days, 1095):])[-1] * 100), 2,
                                               f"percent distance of {PORTFOLIO} from its 3-year high"),
    }


def _diversification(rs, rb, cov, var_p, vols) -> dict:
    """How much the bond leg diversifies the equity leg (inside the scope of both legs' series)."""
    vol_p, vol_s, vol_b = vols
    pair = "correlation of daily SP500 returns and 10-year Treasury total returns (from DGS10)"
    return {
        "stock_bond_correlation_63d": envelope.rnd(indicators.pearson(rs[-63:], rb[-63:]), 3, f"63-day {pair}")
        if len(rs) >= 63 else None,
        "stock_bond_correlation_1y": envelope.rnd(indicators.pearson(rs[-YEAR:], rb[-YEAR:]), 3, f"252-day {pair}"),
        # weighted leg volatilities over portfolio volatility: 1 means no diversification benefit
        "diversification_ratio_1y": envelope.rnd((W_EQ * vol_s + W_BOND * vol_b) / vol_p, 3,
                                                 "weighted leg volatilities "
                                                 "over portfolio volatility, 1 year") if vol_p else None,
        # Euler risk contribution of the equity leg: w_s * cov(r_s, r_p) / var(r_p)
        "equity_risk_share_1y_pct": envelope.rnd(W_EQ * (W_EQ * cov[0, 0] + W_BOND * cov[0, 1]) / var_p * 100, 1,
                                                 "equity leg's Euler share of portfolio variance, 1 year, percent")
        if var_p > 0 else None,
    }


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS, need="all")
    sources = envelope.data_sources(frames, INPUTS)
    spx, dgs = frames.get("SP500"), frames.get("DGS10")
    bond_days, bond, duration = bond_index(dgs)
    days, s, b = align((indicators.day_numbers(spx), spx["value"].to_numpy()), (bond_days, bond))
    if len(days) < 22:
        raise envelope.InsufficientData(f"{NAME}: only {len(days)} common observations of SP500 and DGS10")
    rs, rb = s[1:] / s[:-1] - 1, b[1:] / b[:-1] - 1
    rp = W_EQ * rs + W_BOND * rb  # daily rebalancing keeps the weights constant
    port = 100 * np.cumprod(np.concatenate([[1.0], 1 + rp]))
    year = rp[-YEAR:]
    full_year = len(rp) >= YEAR
    vol_p, vol_s, vol_b = _vol(year), _vol(rs[-YEAR:]), _vol(rb[-YEAR:])
    cov = np.cov(np.vstack([rs[-YEAR:], rb[-YEAR:]]))
    var_p = W_EQ ** 2 * cov[0, 0] + W_BOND ** 2 * cov[1, 1] + 2 * W_EQ * W_BOND * cov[0, 1]
    with provenance.about(frames, "DGS10"):
        bond_leg = {"yield_10y_pct": envelope.level(frames, "DGS10", 2, op="latest DGS10 yield"),
                    "duration_years": envelope.rnd(duration[-1], 2, "modified duration of a 10-year par bond at the "
                                                                    "latest DGS10 yield"),
                    "average_duration_1y_years": envelope.rnd(float(np.mean(duration[-YEAR:])), 2,
                                                              "mean modified duration over the past 252 observations")}
        bonds = _returns(days, b, BOND)
        bond_vol = envelope.rnd(vol_b, 2,
                                f"annualized volatility of daily returns of {BOND} over the past year, percent")
    with provenance.about(frames, "SP500"):
        equities = _returns(days, s, "SP500", price="SP500")
        equity_vol = envelope.rnd(vol_s, 2, "annualized volatility of daily SP500 returns over the past year, percent")
    with provenance.about(frames, *INPUTS):
        data = {
            "weights": {"equities_pct": envelope.constant(W_EQ * 100, "fixed parameter: equity weight, percent"),
                        "bonds_pct": envelope.constant(W_BOND * 100, "fixed parameter: bond weight, percent"),
                        "rebalancing": "daily"},
            "bond_leg": bond_leg, "portfolio": _returns(days, port, PORTFOLIO), "equities": equities, "bonds": bonds,
            "risk": _risk(days, port, rp, vol_p, equity_vol, bond_vol),
            "diversification": _diversification(rs, rb, cov, var_p, (vol_p, vol_s, vol_b)),
        }
        r1y = data["portfolio"]["return_1y_pct"]
        data["risk"]["return_to_volatility_1y"] = envelope.rnd(r1y / vol_p, 2, "1-year return over 1-year volatility") \
            if r1y is not None and vol_p else None
        data["history_years_used"] = envelope.rnd(min(len(rp), 3 * YEAR) / YEAR, 1,
                                                  "years of common daily returns used, at most 3 (252 a year)")
    unavailable = {f"{leg}.{k}": "history too short" for leg in ("portfolio", "risk", "diversification")
                   for k, v in data[leg].items() if v is None}
    if not full_year:
        unavailable["one_year_figures"] = f"computed over {len(rp)} daily returns, not a full year"
    signals = _signals(data, sources)
    p, r, dv = data["portfolio"], data["risk"], data["diversification"]
    summary = (f"A 60/40 S&P 500 and 10-year Treasury portfolio is {pct_word(p['return_1m_pct'])} over one month, "
               f"{pct_word(p['return_3m_pct'])} over three months and {pct_word(p['return_1y_pct'])} over one year"
               + (f" ({fig(p['return_3y_annualized_pct'], '%')} a year over three years)"
                  if p["return_3y_pct"] is not None else "")
               + f", with 1-year volatility of {fig(r['volatility_1y_pct'], '%')} and a 1-year maximum drawdown of "
               f"{fig(r['max_drawdown_1y_pct'], '%')}; it sits {fig(r['drawdown_from_high_pct'], '%')} from its "
               f"3-year high. The stock-bond correlation is {fig(dv['stock_bond_correlation_63d'])} over 63 days and "
               f"{fig(dv['stock_bond_correlation_1y'])} over a year; equities carry "
               f"{fig(dv['equity_risk_share_1y_pct'], '%')} of the risk "
               f"(diversification ratio {fig(dv['diversification_ratio_1y'])}). The bond leg is priced at a "
               f"duration of {data['bond_leg']['duration_years']} years.")
    if unavailable:
        summary += f" Not enough history for: {', '.join(unavailable)}."
    summary += envelope.staleness_note(sources)
    data["window_days"] = envelope.constant(63,
                                            "fixed parameter: short correlation and volatility window in trading days")
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("stock_bond_correlation", "the correlation regime that drives diversification"),
                              ("equity_drawdown", "recovery times of the equity leg"),
                              ("duration_risk", "rate-shock P&L of the bond leg"),
                              ("equity_bond_relative", "which leg is leading"),
                              ("asset_class_momentum", "momentum across the wider asset classes")),
                          methodology=("Daily-rebalanced 60% S&P 500 price index (dividends excluded, as FRED "
                                       "publishes it) and 40% 10-year Treasury total return on common dates. "
                                       + BOND_METHOD + " Returns compare the last value with the last value on or "
                                       "before the same calendar date; volatility is the annualized standard "
                                       "deviation of daily returns (252 per year); the equity risk share is the "
                                       "equity leg's Euler contribution to portfolio variance."),
                          unavailable=unavailable or None)


def _signals(data: dict, sources: dict) -> list[dict]:
    p, r, dv = data["portfolio"], data["risk"], data["diversification"]
    dd = r["drawdown_from_high_pct"]
    # trend over the longest horizon available: one year, else three months
    key, label = ("return_1y_pct", "1-year") if p["return_1y_pct"] is not None else ("return_3m_pct", "3-month")
    trend = p[key]
    if dd <= -15:
        direction, urgency = "bearish", "high"
    elif dd <= -8:
        direction, urgency = "bearish", "medium"
    elif trend is not None and trend > 0 and dd > -5:
        direction, urgency = "bullish", "low"
    else:
        direction, urgency = "neutral", "low"
    reason = f"60/40 portfolio {dd}% from its 3-year high, {label} return {fig(trend, '%')}"
    conf = envelope.degrade(0.45 + min(0.4, abs(dd) / 40 + abs(trend or 0) / 60), sources, essential=INPUTS)
    out = [envelope.signal("portfolio_trend", direction, conf, urgency, reason)]
    c = dv["stock_bond_correlation_63d"]
    if c is not None:
        if c > 0.2:
            d2, u2, why = "bearish", "medium" if c < 0.5 else "high", "bonds moving with stocks, little hedge"
        elif c < -0.2:
            d2, u2, why = "bullish", "low", "bonds offsetting equity moves"
        else:
            d2, u2, why = "neutral", "low", "weak link between the legs"
        out.append(envelope.signal("diversification", d2,
                                   envelope.degrade(0.45 + min(0.4, abs(c) / 2), sources, essential=INPUTS),
                                   u2, f"63-day stock-bond correlation {c}: {why}"))
    return out


register(Module(name=NAME, category="cross_asset", tier="S", inputs=INPUTS,
                description="60/40 return, volatility, drawdown and stock-bond diversification",
                compute=compute, lookback_days=1500))
