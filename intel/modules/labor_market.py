"""labor_market: unemployment (U-3 and U-6), payrolls and their 3-month average, initial claims and their
4-week average, job openings, participation, and a count of which of them are deteriorating."""
from __future__ import annotations

from functools import partial

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, month_grid, month_label, move_word
from intel.modules._labor import CLAIMS_RISE_ALERT_PCT, SAHM_TRIGGER_PP, claims_profile
from intel.modules._monthly import month_change, month_pct_change
from intel.registry import Module, register

NAME = "labor_market"
INPUTS = ("UNRATE", "PAYEMS", "ICSA", "JTSJOL", "CIVPART", "U6RATE")
# what counts as deteriorating (each a stated rule of thumb, checked only where its input is present)
UNRATE_RISE_PP = 0.3  # unemployment 0.3 pp above its 12-month low
PAYROLL_FLOOR_K = 50.0  # 3-month average payroll gain under 50k a month, below labour-force growth
OPENINGS_FALL_PCT = -10.0  # openings down 10% or more on the year
U6_RISE_PP = 0.5  # U-6 up 0.5 pp or more on the year
# the series each deterioration check reads
CHECKED = {"unemployment_rising": "UNRATE", "payroll_gains_weak": "PAYEMS", "claims_rising": "ICSA",
           "openings_falling": "JTSJOL", "u6_rising": "U6RATE"}
_pp = partial(move_word, unit=" pp", missing="no year-ago comparison")


def _rate_stats(frames: Frames, sid: str) -> dict:
    """A monthly rate in percent: level, 3- and 12-month changes (calendar-matched), 12-month low."""
    start, grid = month_grid(frames.get(sid))
    last = grid[-1]
    low = float(np.nanmin(grid[-12:]))
    with provenance.about(frames, sid):
        return {"period": month_label(start + len(grid) - 1), "rate_pct": envelope.level(frames, sid, 2),
                "change_3m_pp": month_change(frames, sid, 3, 2, "change over 3 months, pp"),
                "change_12m_pp": month_change(frames, sid, 12, 2, "change over 12 months, pp"),
                "low_12m_pct": envelope.rnd(low, 2, "lowest value of the last 12 months"),
                "rise_from_12m_low_pp": envelope.rnd(last - low, 2, "latest value minus its 12-month low, pp")}


def _payrolls(frames: Frames, sid: str = "PAYEMS") -> dict:
    start, grid = month_grid(frames.get(sid))
    diffs = np.diff(grid)

    def avg(n):
        return envelope.rnd(np.mean(diffs[-n:]), 1, f"mean monthly change over {n} months") if len(diffs) >= n else None

    with provenance.about(frames, sid):
        return {"period": month_label(start + len(grid) - 1), "level_thousands": envelope.level(frames, sid, 0),
                "change_1m_thousands": month_change(frames, sid, 1, 1, "change from the month before"),
                "avg_change_3m_thousands": avg(3), "avg_change_12m_thousands": avg(12),
                "yoy_pct": month_pct_change(frames, sid, 12, 2, "percent change from 12 months earlier")}


def _openings(frames: Frames, sid: str = "JTSJOL") -> dict:
    frame = frames.get(sid)
    start, grid = month_grid(frame)
    decade = indicators.window(frame, 3653)["value"].to_numpy()
    with provenance.about(frames, sid):
        return {"period": month_label(start + len(grid) - 1), "level_thousands": envelope.level(frames, sid, 0),
                "change_3m_pct": month_pct_change(frames, sid, 3, 2, "percent change from 3 months earlier"),
                "change_12m_pct": month_pct_change(frames, sid, 12, 2, "percent change from 12 months earlier"),
                "percentile_10y": envelope.rnd(indicators.percentile_rank(decade, float(grid[-1])), 1,
                                               "percentile rank of the latest value within 10 years")}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    get = frames.get
    data: dict = {}
    if get("UNRATE") is not None:
        data["unemployment"] = _rate_stats(frames, "UNRATE")
    if get("U6RATE") is not None:
        data["u6_unemployment"] = _rate_stats(frames, "U6RATE")
        u3 = data.get("unemployment")
        if u3 and u3["period"] == data["u6_unemployment"]["period"]:
            data["u6_unemployment"]["gap_to_u3_pp"] = envelope.difference(
                envelope.last_obs(frames, "U6RATE"), envelope.last_obs(frames, "UNRATE"), 2, scale=1.0,
                op="U6RATE - UNRATE, pp")
    if get("PAYEMS") is not None:
        data["payrolls"] = _payrolls(frames)
    if get("ICSA") is not None:
        data["initial_claims"] = claims_profile(frames)
    if get("JTSJOL") is not None:
        data["job_openings"] = _openings(frames)
    if get("CIVPART") is not None:
        p = _rate_stats(frames, "CIVPART")
        data["participation"] = {k: p[k] for k in ("period", "rate_pct", "change_3m_pp", "change_12m_pp")}
    checks = _checks(data)
    weakening = [k for k, v in checks.items() if v]
    share = len(weakening) / len(checks) if checks else None
    state = None if share is None else "weakening" if share >= 0.5 else "softening" if weakening else "solid"
    with provenance.about(frames, *(CHECKED[k] for k in checks)):
        data["conditions"] = {"checks_available": envelope.count(len(checks), "count of checks with their input"),
                              "checks_deteriorating": envelope.count(len(weakening), "count of checks deteriorating"),
                              "deteriorating": weakening, "deteriorating_share_pct": envelope.rnd(
                                  None if share is None else share * 100, 1, "percent of checks deteriorating"),
                              "state": state}
    unavailable = {k: "input series missing" for k, sid in (
        ("unemployment", "UNRATE"), ("u6_unemployment", "U6RATE"), ("payrolls", "PAYEMS"),
        ("initial_claims", "ICSA"), ("job_openings", "JTSJOL"), ("participation", "CIVPART")) if get(sid) is None}
    signals = []
    if share is not None:
        rise = (data.get("unemployment") or {}).get("rise_from_12m_low_pp") or 0.0
        direction = "bearish" if state == "weakening" else "bullish" if state == "solid" else "neutral"
        urgency = "high" if state == "weakening" and rise >= SAHM_TRIGGER_PP else \
            "medium" if state == "weakening" else "low"
        confidence = 0.45 + 0.4 * abs(share - 0.5) + 0.02 * len(checks)
        signals.append(envelope.signal(
            "labor_momentum", direction, envelope.degrade(confidence, sources, essential=["UNRATE", "PAYEMS"]), urgency,
            f"labour market {state}: {len(weakening)} of {len(checks)} checks deteriorating "
            "(direction refers to risk assets)"))
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=_summary(data) + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("sahm_rule", "the unemployment-based recession trigger"),
                              ("recession_probability", "the curve probit combined with labour signals"),
                              ("fed_policy", "how the labour market shapes the policy path"),
                              ("growth", "activity data beside employment"),
                              ("economic_calendar", "the next payrolls, claims and JOLTS releases")),
                          methodology=f"Monthly changes are matched by calendar month; claims use a 4-week average "
                                      "and its 52-week low. Deteriorating checks (each counted where its input "
                                      f"exists): unemployment {UNRATE_RISE_PP} pp or more above its 12-month low, "
                                      f"3-month average payroll gain under {PAYROLL_FLOOR_K:.0f}k, 4-week claims "
                                      f"{CLAIMS_RISE_ALERT_PCT:.0f}% or more above their 52-week low, openings down "
                                      f"{-OPENINGS_FALL_PCT:.0f}% or more on the year, U-6 up {U6_RISE_PP} pp or more "
                                      "on the year; half or more deteriorating is 'weakening', none is 'solid'.")


def _checks(data: dict) -> dict[str, bool]:
    checks = {}
    u = data.get("unemployment")
    if u:
        checks["unemployment_rising"] = u["rise_from_12m_low_pp"] >= UNRATE_RISE_PP
    p = data.get("payrolls")
    if p and p["avg_change_3m_thousands"] is not None:
        checks["payroll_gains_weak"] = p["avg_change_3m_thousands"] < PAYROLL_FLOOR_K
    c = data.get("initial_claims")
    if c and c["rise_from_52w_low_pct"] is not None:
        checks["claims_rising"] = c["rise_from_52w_low_pct"] >= CLAIMS_RISE_ALERT_PCT
    o = data.get("job_openings")
    if o and o["change_12m_pct"] is not None:
        checks["openings_falling"] = o["change_12m_pct"] <= OPENINGS_FALL_PCT
    u6 = data.get("u6_unemployment")
    if u6 and u6["change_12m_pp"] is not None:
        checks["u6_rising"] = u6["change_12m_pp"] >= U6_RISE_PP
    return checks


def _summary(data: dict) -> str:
    parts = []
    u = data.get("unemployment")
    if u:
        parts.append(f"Unemployment was {u['rate_pct']}% in {u['period']}, {_above(u['rise_from_12m_low_pp'], ' pp')} "
                     f"its 12-month low ({_pp(u['change_12m_pp'])} on the year).")
    u6 = data.get("u6_unemployment")
    if u6:
        parts.append(f"The broader U-6 rate was {u6['rate_pct']}%.")
    p = data.get("payrolls")
    if p:
        parts.append(f"Payrolls changed by {fig(p['avg_change_3m_thousands'])} thousand a month on a 3-month "
                     f"average ({fig(p['change_1m_thousands'])} thousand in {p['period']}).")
    c = data.get("initial_claims")
    if c:
        parts.append(f"Initial claims averaged {_whole(c['avg_4w'])} over four weeks to {c['week_ending']}, "
                     f"{_above(c['rise_from_52w_low_pct'], '%')} their 52-week low.")
    o = data.get("job_openings")
    if o:
        parts.append(f"Job openings stood at {_whole(o['level_thousands'])} thousand in {o['period']} "
                     f"({fig(o['change_12m_pct'], '%')} on the year).")
    part = data.get("participation")
    if part:
        parts.append(f"Participation was {part['rate_pct']}%.")
    cond = data["conditions"]
    if cond["state"]:
        parts.append(f"Overall the labour market is {cond['state']}: {int(cond['checks_deteriorating'])} of "
                     f"{int(cond['checks_available'])} checks deteriorating.")
    return " ".join(parts)


def _above(x, unit: str) -> str:
    """'0.3 pp above' a low, or 'at' it when the rise rounds to zero (no side for a zero)."""
    if x is None:
        return "n/a above"
    return "at" if x == 0 else f"{x}{unit} above"


def _whole(x) -> str:
    return "n/a" if x is None else f"{x:.0f}"


register(Module(name=NAME, category="macro", tier="S", inputs=INPUTS,
                description="Unemployment, payrolls 3m average, claims 4-week average, openings, participation",
                compute=compute, lookback_days=3700))
