"""fed_policy: the policy rate, the 2y-minus-funds implied path (25 bp moves priced), and the Taylor-rule gap."""
from __future__ import annotations

from intel import envelope, provenance
from intel.frames import Frames
from intel.modules._common import fig
from intel.modules._rates import DAYS, STATED, change_bp, move_bp
from intel.registry import Module, register

NAME = "fed_policy"
INPUTS = ("FEDFUNDS", "DGS2", "DGS3MO", "CPILFESL", "UNRATE")
STEP_BP = 25.0  # one conventional policy move
# Taylor (1993): i = r* + pi + 0.5 (pi - pi*) + 0.5 y, with the output gap y from Okun's law,
# y = -OKUN (u - u*). Stated parameters (the few this module has):
RSTAR_PCT, TARGET_PCT, NATURAL_U_PCT, OKUN = 2.0, 2.0, 4.5, 2.0
# policy more than this far (bp) from the rule is called restrictive or accommodative
STANCE_BAND_BP = 100.0
ZERO_BOUND_PCT = 0.5  # a funds rate below this is at the effective lower bound


def _by_month(frame) -> dict:
    """(year, month) -> (date, value) of the month's last observation."""
    return {(d.year, d.month): (d, float(v)) for d, v in zip(frame["date"], frame["value"])}


def _months_back(year: int, month: int, n: int) -> tuple[int, int]:
    index = year * 12 + month - 1 - n
    return index // 12, index % 12 + 1


def month_pair(frame, sid: str, n: int) -> tuple[tuple, tuple] | None:
    """The last monthly observation and the one n calendar months earlier, as (series, date, value); None on
    a gap."""
    by_month, last = _by_month(frame), frame["date"][-1]
    base = by_month.get(_months_back(last.year, last.month, n))
    if base is None:
        return None
    return (sid, *by_month[(last.year, last.month)]), (sid, *base)


def month_change(frame, sid: str, n: int, kind: str, digits: int):
    """Last monthly value against the same series n calendar months earlier (None on a gap), as a figure of
    the two named observations: `bp` a difference in bp, `pct` a percent change."""
    pair = month_pair(frame, sid, n)
    if pair is None:
        return None
    if kind == "bp":
        return envelope.difference(*pair, digits, op=f"change from {n} calendar months earlier, bp")
    return envelope.pct_change(*pair, digits, op=f"percent change from {n} calendar months earlier")


def _about(frames: Frames, ids: tuple[str, ...], value: float, digits: int, op: str):
    """`value` rounded as a figure resting on the series `ids`."""
    with provenance.about(frames, *ids):
        return envelope.rnd(value, digits, op)


def taylor_rate(core_yoy: float, unrate: float) -> float:
    output_gap = -OKUN * (unrate - NATURAL_U_PCT)
    return RSTAR_PCT + core_yoy + 0.5 * (core_yoy - TARGET_PCT) + 0.5 * output_gap


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ["FEDFUNDS"], need="all")
    # never raises (FEDFUNDS is present): names the yields of the implied path as essential too
    envelope.require(frames, NAME, ["FEDFUNDS", "DGS2", "DGS3MO"])
    sources = envelope.data_sources(frames, INPUTS)
    funds_frame = frames.get("FEDFUNDS")
    funds = float(funds_frame["value"][-1])
    last = funds_frame["date"][-1]
    change_12m = month_change(funds_frame, "FEDFUNDS", 12, "bp", 0)
    data: dict = {"policy": {
        "fed_funds_effective_pct": envelope.level(frames, "FEDFUNDS", 2),
        "fed_funds_month": f"{last.year}-{last.month:02d}",
        "change_3m_bp": month_change(funds_frame, "FEDFUNDS", 3, "bp", 0),
        "change_12m_bp": change_12m,
        "cycle_12m": None if change_12m is None else
        "hiking" if change_12m >= STEP_BP else "cutting" if change_12m <= -STEP_BP else "on_hold",
        # near zero cuts cannot be priced, so the spread mostly shows how long the floor is expected to last
        "near_zero_bound": funds < ZERO_BOUND_PCT}}
    unavailable = {}

    path = {}
    for sid, label in (("DGS2", "2y"), ("DGS3MO", "3m")):
        frame = frames.get(sid)
        if frame is None:
            unavailable[f"implied_path_{label}"] = f"{sid} missing"
            continue
        spread = (float(frame["value"][-1]) - funds) * 100
        with provenance.about(frames, sid, "FEDFUNDS"):
            path[label] = {
                "yield_pct": envelope.level(frames, sid, 2),
                "minus_funds_bp": envelope.difference(envelope.last_obs(frames, sid),
                                                      envelope.last_obs(frames, "FEDFUNDS"), 1),
                # negative = cuts priced; the 2y is read as the average expected policy rate over two years
                "moves_25bp_priced": envelope.rnd(spread / STEP_BP, 1, f"({sid} - FEDFUNDS) in bp / {STEP_BP} bp"),
                "change_1m_bp": change_bp(frames, sid, DAYS["1m"])}
        path[label]["priced"] = "cuts" if spread <= -STEP_BP / 2 else "hikes" if spread >= STEP_BP / 2 else "no_change"
    if path:
        data["implied_path"] = path
        data["move_size_bp"] = envelope.constant(STEP_BP, STATED)  # the size of one policy move

    core, jobs = frames.get("CPILFESL"), frames.get("UNRATE")
    pair = month_pair(core, "CPILFESL", 12) if core is not None else None
    # the rule takes the unrounded year-on-year rate; data shows it rounded, from the same two observations
    core_yoy = (pair[0][2] / pair[1][2] - 1) * 100 if pair and pair[1][2] else None
    if core_yoy is not None and jobs is not None:
        unrate = float(jobs["value"][-1])
        rule = taylor_rate(core_yoy, unrate)
        gap = (funds - rule) * 100
        c_last, u_last = core["date"][-1], jobs["date"][-1]
        rule_words = "Taylor (1993) rate on core CPI year on year and unemployment"
        data["taylor_rule"] = {
            "core_cpi_yoy_pct": month_change(core, "CPILFESL", 12, "pct", 2),
            "core_cpi_period": f"{c_last.year}-{c_last.month:02d}",
            "unemployment_rate_pct": envelope.level(frames, "UNRATE", 1),
            "unemployment_period": f"{u_last.year}-{u_last.month:02d}",
            "unemployment_gap_pp": _about(frames, ("UNRATE",), unrate - NATURAL_U_PCT, 1,
                                          f"UNRATE - {NATURAL_U_PCT} (natural rate), percentage points"),
            "taylor_rate_pct": _about(frames, ("CPILFESL", "UNRATE"), rule, 2, rule_words),
            "funds_minus_taylor_bp": _about(frames, ("FEDFUNDS", "CPILFESL", "UNRATE"), gap, 0,
                                            f"FEDFUNDS minus the {rule_words}, bp"),
            "real_policy_rate_pct": _about(frames, ("FEDFUNDS", "CPILFESL"), funds - core_yoy, 2,
                                           "FEDFUNDS - core CPI year on year (rounded)"),
            "stance": "restrictive" if gap > STANCE_BAND_BP else "accommodative" if gap < -STANCE_BAND_BP
            else "near_rule",
            "parameters": {"neutral_real_rate_pct": envelope.constant(RSTAR_PCT, STATED),
                           "inflation_target_pct": envelope.constant(TARGET_PCT, STATED),
                           "natural_unemployment_pct": envelope.constant(NATURAL_U_PCT, STATED),
                           "okun_coefficient": envelope.constant(OKUN, STATED)}}
    else:
        why = "CPILFESL missing" if core is None else "UNRATE missing" if jobs is None else \
            "core CPI history shorter than a year"
        unavailable["taylor_rule"] = why

    signals = []
    lead = path.get("2y") or path.get("3m")
    if lead is not None:
        label = "2y" if "2y" in path else "3m"
        moves = lead["moves_25bp_priced"]
        # direction refers to risk assets: easing priced supports them, hikes priced weigh on them
        direction = "bullish" if moves <= -1 else "bearish" if moves >= 1 else "neutral"
        urgency = "high" if abs(moves) >= 4 else "medium" if abs(moves) >= 2 else "low"
        confidence = envelope.degrade(
            (0.4 + min(0.45, abs(moves) / 10)) * (0.7 if data["policy"]["near_zero_bound"] else 1), sources,
            essential=["FEDFUNDS", "DGS2" if label == "2y" else "DGS3MO"])
        signals.append(envelope.signal("implied_policy_path", direction, confidence, urgency,
                                       f"{label} minus funds {lead['minus_funds_bp']} bp: {abs(moves)} moves of "
                                       f"{STEP_BP} bp priced as {lead['priced'].replace('_', ' ')}"
                                       + (" near the zero bound" if data["policy"]["near_zero_bound"] else "")
                                       + " (direction for risk assets)"))
    if "taylor_rule" in data:
        t = data["taylor_rule"]
        gap = t["funds_minus_taylor_bp"]
        direction = {"restrictive": "bearish", "accommodative": "bullish", "near_rule": "neutral"}[t["stance"]]
        confidence = envelope.degrade(0.35 + min(0.4, abs(gap) / 600), sources,
                                      essential=["FEDFUNDS", "CPILFESL", "UNRATE"])
        signals.append(envelope.signal("taylor_rule_gap", direction, confidence,
                                       "medium" if abs(gap) > 2 * STANCE_BAND_BP else "low",
                                       f"funds {gap} bp versus a Taylor rate of {t['taylor_rate_pct']}%: "
                                       f"{t['stance'].replace('_', ' ')} (direction for risk assets)"))

    p = data["policy"]
    parts = [f"The effective fed funds rate averaged {p['fed_funds_effective_pct']}% in {p['fed_funds_month']}, "
             + (f"{move_bp(p['change_12m_bp'])} over twelve months ({p['cycle_12m'].replace('_', ' ')})."
                if p["change_12m_bp"] is not None else "with no twelve-month comparison.")]
    if lead is not None:
        parts.append(f"The {label} yield sits {lead['minus_funds_bp']} bp from funds, "
                     f"about {abs(lead['moves_25bp_priced'])} "
                     f"moves of {STEP_BP} bp priced as {lead['priced'].replace('_', ' ')}"
                     + (" (with funds near the zero bound, where cuts cannot be priced)."
                        if data["policy"]["near_zero_bound"] else "."))
    else:
        parts.append("With neither the 2y nor the 3m yield the implied path is unavailable.")
    if "taylor_rule" in data:
        t = data["taylor_rule"]
        parts.append(f"A Taylor rule on core CPI of {t['core_cpi_yoy_pct']}% and unemployment of "
                     f"{t['unemployment_rate_pct']}% gives {t['taylor_rate_pct']}%, so funds minus the rule is "
                     f"{t['funds_minus_taylor_bp']} bp ({t['stance'].replace('_', ' ')}); the real policy rate is "
                     f"{fig(t['real_policy_rate_pct'], '%')}.")
    else:
        parts.append(f"The Taylor-rule gap is unavailable ({unavailable['taylor_rule']}).")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=" ".join(parts) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("inflation", "the inflation trend the rule reacts to"),
                              ("labor_market", "the unemployment side of the mandate"),
                              ("yield_curve", "how the curve prices the path"),
                              ("curve_dynamics", "whether front-end moves steepen or flatten the curve"),
                              ("economic_calendar", "the next FOMC meeting and data releases")),
                          methodology=f"Taylor (1993): rate = r* + pi + 0.5(pi - target) + 0.5 * output gap, with "
                                      f"r* = {RSTAR_PCT}%, target {TARGET_PCT}%, pi = core CPI year on year, and the "
                                      f"output gap from Okun's law as -{OKUN} x (unemployment - {NATURAL_U_PCT}%). "
                                      "The implied path is the 2y (and 3m) yield minus the latest monthly effective "
                                      f"funds rate in bp, divided by {STEP_BP} bp per move; the 2y is read as the "
                                      "average expected policy rate over two years plus a small term premium.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="rates_credit", tier="S", inputs=INPUTS,
                description="Policy rate, 2y-minus-funds implied path (cuts/hikes priced), Taylor-rule gap",
                compute=compute, lookback_days=3700))
