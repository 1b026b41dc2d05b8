"""What an episode's aftermath says per asset class, and for bitcoin: each statement derived from the
episode's measured next-12-month figures by a stated rule, never from judgement."""
from __future__ import annotations

import statistics
from datetime import date, timedelta

from intel.parallels.readings import MAX_DAILY_AGE_DAYS, Line, add_months

# A 12-month move within this band (percent, or percentage points of yield) is called flat.
FLAT_RETURN_PCT = 5.0
FLAT_YIELD_PP = 0.5
# Drawdown bands for the equity drawdown risk.
DRAWDOWN_HIGH_PCT = -20.0
DRAWDOWN_MODERATE_PCT = -10.0
# The bitcoin beta needs this many months of both bitcoin and the S&P 500 before the clock.
MIN_BETA_MONTHS = 24


def _value(next_figures: dict, key: str) -> float | None:
    return (next_figures.get(key) or {}).get("value")


def _stance(change: float | None, band: float, up_is_good: bool = True) -> str:
    if change is None:
        return "unknown"
    if abs(change) < band:
        return "flat"
    return "favourable" if (change > 0) == up_is_good else "unfavourable"


def implications(next_figures: dict) -> list[dict]:
    """Equities, Treasuries and gold after the episode's start."""
    r12, dd = _value(next_figures, "sp500_return_12m_pct"), _value(next_figures, "sp500_max_drawdown_12m_pct")
    dy, gold = _value(next_figures, "dgs10_change_12m_pp"), _value(next_figures, "gold_return_12m_pct")
    risk = None if dd is None else "high" if dd <= DRAWDOWN_HIGH_PCT else "moderate" if dd <= DRAWDOWN_MODERATE_PCT \
        else "low"
    return [
        {"asset_class": "equities", "stance": _stance(r12, FLAT_RETURN_PCT), "drawdown_risk": risk,
         "basis": {"sp500_return_12m_pct": r12, "sp500_max_drawdown_12m_pct": dd},
         "rule": f"favourable if the S&P 500 rose {FLAT_RETURN_PCT:g}% or more in 12 months, unfavourable if it "
                 f"fell as much; drawdown risk high at {DRAWDOWN_HIGH_PCT:g}%, moderate at {DRAWDOWN_MODERATE_PCT:g}%"},
        {"asset_class": "treasuries", "stance": _stance(dy, FLAT_YIELD_PP, up_is_good=False),
         "basis": {"dgs10_change_12m_pp": dy},
         "rule": f"favourable (prices rise as yields fall) if the 10-year yield fell {FLAT_YIELD_PP:g} points or "
                 "more in 12 months, unfavourable if it rose as much"},
        {"asset_class": "gold", "stance": _stance(gold, FLAT_RETURN_PCT), "basis": {"gold_return_12m_pct": gold},
         "rule": f"favourable if gold rose {FLAT_RETURN_PCT:g}% or more in 12 months, unfavourable if it fell as much"},
    ]


def _month_ends(line: Line, last: date) -> dict[tuple[int, int], float]:
    """Month -> its closing value, for months whose last observation is near the month's end (a series that
    stops mid-month, as CBBTCUSD does on 2024-02-09, has no close for that month)."""
    closes: dict[tuple[int, int], tuple[date, float]] = {}
    for day, value in zip(line.dates, line.values, strict=True):
        if day <= last:
            closes[(day.year, day.month)] = (day, value)  # ascending: the month's last observation wins
    return {m: v for m, (day, v) in closes.items()
            if (add_months(date(m[0], m[1], 1), 1) - day).days <= MAX_DAILY_AGE_DAYS}


def bitcoin_beta(lines: dict[str, Line], today: date) -> dict | None:
    """Bitcoin's beta to the S&P 500 on monthly returns over the complete months before `today` where both
    exist; None with fewer than MIN_BETA_MONTHS."""
    btc, spx = lines.get("CBBTCUSD"), lines.get("SP500")
    if btc is None or spx is None:
        return None
    last = date(today.year, today.month, 1) - timedelta(days=1)  # complete months only
    b, s = _month_ends(btc, last), _month_ends(spx, last)
    months = sorted(set(b) & set(s))
    pairs = [(b[m1] / b[m0] - 1, s[m1] / s[m0] - 1) for m0, m1 in zip(months, months[1:], strict=False)
             if (m1[0] * 12 + m1[1]) - (m0[0] * 12 + m0[1]) == 1]
    if len(pairs) < MIN_BETA_MONTHS:
        return None
    rb, rs = [p[0] for p in pairs], [p[1] for p in pairs]
    beta = statistics.covariance(rb, rs) / statistics.variance(rs)
    return {"beta": round(beta, 2), "correlation": round(statistics.correlation(rb, rs), 2), "months": len(pairs),
            "from": f"{months[0][0]}-{months[0][1]:02d}", "to": f"{months[-1][0]}-{months[-1][1]:02d}",
            "series": ["CBBTCUSD", "SP500"]}


def bitcoin_impact(episode: dict, beta: dict | None) -> dict:
    """Measured where CBBTCUSD covers the episode; otherwise an inference labelled as one: the episode's S&P 500
    figures scaled by bitcoin's measured beta to the S&P 500 up to today."""
    measured = episode.get("bitcoin_next")
    if measured:
        return {"kind": "measured", "figures": measured,
                "note": "bitcoin's own prices (CBBTCUSD) after the episode's start"}
    if beta is None:
        return {"kind": "none", "figures": None,
                "note": f"bitcoin has no prices for this episode and fewer than {MIN_BETA_MONTHS} months of bitcoin "
                        "and S&P 500 history exist before the clock to infer from"}
    r12, dd = _value(episode["next"], "sp500_return_12m_pct"), _value(episode["next"], "sp500_max_drawdown_12m_pct")
    scaled = {k: None if v is None else round(max(-99.0, beta["beta"] * v), 1)
              for k, v in (("bitcoin_return_12m_pct", r12), ("bitcoin_max_drawdown_12m_pct", dd))}
    return {"kind": "inference", "figures": scaled, "beta": beta,
            "note": "an inference, not a measurement: no bitcoin prices exist for this episode; its S&P 500 figures "
                    f"times bitcoin's beta of {beta['beta']} to the S&P 500 on monthly returns, {beta['from']} to "
                    f"{beta['to']} (correlation {beta['correlation']})"}
