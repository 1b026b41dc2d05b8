"""inflation: CPI, core CPI, core PCE and PPI: YoY, 3m and 6m annualized, gap to 2%, acceleration."""
from __future__ import annotations

from intel import envelope as env
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


def index_stats(frame) -> dict:
    """Rates from a monthly price index, matched by calendar month (a gap gives None, never a shifted month)."""
    by_month = {(d.year, d.month): v for d, v in zip(frame["date"], frame["value"])}
    last = frame["date"][-1]
    now = by_month[(last.year, last.month)]

    def ratio(n):
        base = by_month.get(_months_back(last.year, last.month, n))
        return None if not base else now / base

    def annualized(n):
        r = ratio(n)
        return None if r is None else (r ** (12 / n) - 1) * 100

    yoy = annualized(12)
    prev = by_month.get(_months_back(last.year, last.month, 3))
    base_prev = by_month.get(_months_back(last.year, last.month, 15))
    yoy_3m_ago = (prev / base_prev - 1) * 100 if prev and base_prev else None
    mom = ratio(1)
    three = annualized(3)
    return {
        "period": f"{last.year}-{last.month:02d}", "index_level": env.rnd(now, 3),
        "mom_pct": env.rnd(None if mom is None else (mom - 1) * 100, 2),
        "yoy_pct": env.rnd(yoy, 2), "annualized_3m_pct": env.rnd(three, 2),
        "annualized_6m_pct": env.rnd(annualized(6), 2),
        "gap_to_target_pp": env.rnd(None if yoy is None else yoy - TARGET_PCT, 2),
        "yoy_3m_ago_pct": env.rnd(yoy_3m_ago, 2),
        "yoy_change_3m_pp": env.rnd(None if yoy is None or yoy_3m_ago is None else yoy - yoy_3m_ago, 2),
        # momentum: the recent 3 months annualized against the 12-month rate
        "acceleration_pp": env.rnd(None if yoy is None or three is None else three - yoy, 2),
    }


def compute(frames: Frames) -> dict:
    env.require(frames, NAME, MEASURES)
    sources = env.data_sources(frames, MEASURES)
    data = {name: index_stats(frames.get(sid)) for sid, name in MEASURES.items() if frames.get(sid) is not None}
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
        confidence = env.degrade(0.5 + min(0.35, abs(d["gap_to_target_pp"]) / 6), sources, essential=[lead_id])
        trend = "accelerating" if accel else "cooling" if cooling else "steady"
        signals.append(env.signal("inflation_trend", direction, confidence, urgency,
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
        sentences.append(f"The lead measure, {LABELS[lead]}, is {abs(d['gap_to_target_pp'])} pp "
                         f"{'above' if d['gap_to_target_pp'] >= 0 else 'below'} the target.")
    return env.build(NAME, frames, data=data, signals=signals,
                     summary=" ".join(sentences) + env.staleness_note(sources), sources=sources,
                     related_modules=env.related(
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
