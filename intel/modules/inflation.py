"""inflation: CPI, core CPI, core PCE and PPI: YoY, 3m and 6m annualized, gap to 2%, acceleration."""
from __future__ import annotations

from intel import envelope, provenance
from intel.frames import Frames
from intel.modules._common import fig
from intel.registry import Module, register

NAME = "inflation"
TARGET_PCT = 2.0
MEASURES = {"CPIAUCSL": "cpi", "CPILFESL": "core_cpi", "PCEPILFE": "core_pce", "PPIFIS": "ppi_final_demand"}
LABELS = {"cpi": "headline CPI", "core_cpi": "core CPI", "core_pce": "core PCE", "ppi_final_demand": "PPI final demand"}


def _months_back(year: int, month: int, n: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) - n
    return index // 12, index % 12 + 1


def index_stats(frames: Frames, sid: str) -> dict:
    """Rates from a monthly price index, matched by calendar month (a gap gives None, never a shifted month).
    The level, month-on-month and year-on-year rates name their two observations; the rest rest on the series."""
    frame = frames.get(sid)
    by_month = {(d.year, d.month): (sid, d, v) for d, v in zip(frame["date"], frame["value"])}
    last = frame["date"][-1]
    now = by_month[(last.year, last.month)]

    def back(n):
        return by_month.get(_months_back(last.year, last.month, n))

    def annualized(n):
        base = back(n)
        return None if not base or not base[2] else ((now[2] / base[2]) ** (12 / n) - 1) * 100

    def change(a, b, words):
        return envelope.pct_change(a, b, 2, op=words) if a and b else None

    yoy = annualized(12)
    prev, base_prev = back(3), back(15)
    yoy_3m_ago = (prev[2] / base_prev[2] - 1) * 100 if prev and base_prev and base_prev[2] else None
    three = annualized(3)
    with provenance.about(frames, sid):
        return {
            "period": f"{last.year}-{last.month:02d}", "index_level": envelope.level(frames, sid, 3),
            "mom_pct": change(now, back(1), "percent change from the month before"),
            "yoy_pct": change(now, back(12), "percent change from 12 months earlier"),
            "annualized_3m_pct": envelope.rnd(three, 2, "3-month change annualized, percent"),
            "annualized_6m_pct": envelope.rnd(annualized(6), 2, "6-month change annualized, percent"),
            "gap_to_target_pp": envelope.rnd(None if yoy is None else yoy - TARGET_PCT, 2,
                                             f"year-over-year rate minus the {TARGET_PCT}% target"),
            "yoy_3m_ago_pct": change(prev, base_prev, "year-over-year percent change 3 months earlier"),
            "yoy_change_3m_pp": envelope.rnd(None if yoy is None or yoy_3m_ago is None else yoy - yoy_3m_ago, 2,
                                             "year-over-year rate minus its value 3 months earlier"),
            # momentum: the recent 3 months annualized against the 12-month rate
            "acceleration_pp": envelope.rnd(None if yoy is None or three is None else three - yoy, 2,
                                            "3-month annualized rate minus the year-over-year rate"),
        }


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, MEASURES)
    sources = envelope.data_sources(frames, MEASURES)
    data = {name: index_stats(frames, sid) for sid, name in MEASURES.items() if frames.get(sid) is not None}
    # the Fed targets PCE inflation; core CPI and headline CPI stand in, in that order, when PCE is absent
    lead = next((n for n in ("core_pce", "core_cpi", "cpi", "ppi_final_demand")
                 if n in data and data[n]["yoy_pct"] is not None), None)
    signals = []
    if lead is not None:
        d = data[lead]
        hot, accel = d["gap_to_target_pp"] > 0.5, (d["acceleration_pp"] or 0) > 0.25
        cooling = (d["acceleration_pp"] or 0) < -0.25
        # above target and not cooling weighs on bonds and risk assets; near target and not heating helps
        if hot:
            direction = "neutral" if cooling else "bearish"
        else:
            direction = "neutral" if accel else "bullish"
        urgency = "high" if d["yoy_pct"] > 5 and accel else "medium" if hot else "low"
        lead_id = next(s for s, n in MEASURES.items() if n == lead)
        confidence = envelope.degrade(0.5 + min(0.35, abs(d["gap_to_target_pp"]) / 6), sources, essential=[lead_id])
        trend = "accelerating" if accel else "cooling" if cooling else "steady"
        signals.append(envelope.signal("inflation_trend", direction, confidence, urgency,
                                       f"{LABELS[lead]} {trend}, {d['gap_to_target_pp']} pp from target "
                                       "(direction refers to risk assets and bonds)"))
        data["lead_measure"] = lead
    sentences = [f"{LABELS[n][0].upper() + LABELS[n][1:]} for {d['period']} ran "
                 f"{fig(d['yoy_pct'], '%')} year on year, "
                 f"{fig(d['annualized_3m_pct'], '%')} annualized over three months "
                 f"and {fig(d['annualized_6m_pct'], '%')} over six."
                 for n, d in data.items() if isinstance(d, dict)]
    if lead is not None:
        d = data[lead]
        gap = d["gap_to_target_pp"]
        where = "at" if gap == 0 else f"{abs(gap)} pp {'above' if gap > 0 else 'below'}"  # no side for a zero
        sentences.append(f"The lead measure, {LABELS[lead]}, is {where} the target.")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=" ".join(sentences) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("yield_curve", "how the curve prices the inflation trend"),
                              ("fed_policy", "what inflation means for the policy path"),
                              ("real_yields", "breakevens and real rates"),
                              ("macro_regime", "growth x inflation quadrant"),
                              ("economic_calendar", "the next CPI and PCE releases")),
                          methodology=f"Rates compare index levels matched by calendar month: YoY against 12 "
                                      f"months earlier, n-month rates annualized as (ratio^(12/n) - 1); the target "
                                      f"is {TARGET_PCT}%.")


register(Module(name=NAME, category="macro", tier="S", inputs=tuple(MEASURES),
                description="YoY, 3m and 6m annualized, trend vs the 2% target, acceleration",
                compute=compute, lookback_days=800))
