"""growth: industrial production, retail sales and durable goods orders (MoM, 3m annualised, YoY), the
Chicago Fed activity index and its 3-month average, real GDP growth, and an activity nowcast composite."""
from __future__ import annotations

from datetime import date

import numpy as np

from intel import envelope, provenance
from intel.frames import Frames
from intel.indicators import rolling_mean, zscore_last
from intel.modules._common import fig, growth, month_grid, month_label
from intel.modules._monthly import growth_stats, month_pct_change
from intel.registry import Module, register

NAME = "growth"
MONTHLY = {"INDPRO": "industrial_production", "RSXFS": "retail_sales", "DGORDER": "durable_goods_orders"}
LABELS = {"industrial_production": "industrial production", "retail_sales": "retail sales",
          "durable_goods_orders": "durable goods orders"}
INPUTS = ("INDPRO", "RSXFS", "CFNAI", "GDPC1", "DGORDER")
CFNAI_RECESSION = -0.70  # Chicago Fed: CFNAI-MA3 below -0.70 after an expansion, a recession has likely begun
Z_CAP = 3.0  # each component's z-score is capped so one outlier month (2020) cannot swamp the composite
HISTORY_MONTHS = 120


def _monthly_component(frames: Frames, sid: str) -> tuple[dict, float | None, float | None]:
    """Growth figures for one monthly series, and its 3m-annualised z-score now and three months earlier."""
    stats = growth_stats(frames, sid)
    _, grid = month_grid(frames.get(sid))
    ann3 = growth(grid, 3, annualize=True)[-HISTORY_MONTHS:]
    z_now = zscore_last(ann3)
    z_before = zscore_last(ann3[:-3]) if len(ann3) > 3 else None
    with provenance.about(frames, sid):
        stats["annualized_3m_zscore_10y"] = envelope.rnd(z_now, 2,
                                                         "z-score of the 3-month annualized rate over 10 years")
    return stats, z_now, z_before


def _cfnai(frames: Frames, sid: str = "CFNAI") -> tuple[dict, float | None, float | None]:
    start, grid = month_grid(frames.get(sid))
    ma3 = rolling_mean(grid, 3, 3)
    now, before = ma3[-1], (ma3[-4] if len(ma3) > 3 else np.nan)
    with provenance.about(frames, sid):
        out = {"period": month_label(start + len(grid) - 1), "level": envelope.level(frames, sid, 2),
               "ma3": envelope.rnd(now, 2, "3-month average"),
               "ma3_3m_ago": envelope.rnd(before, 2, "3-month average 3 months earlier"),
               "recession_signal": bool(np.isfinite(now) and now < CFNAI_RECESSION)}
    as_z = lambda x: float(x) if np.isfinite(x) else None  # noqa: E731  (CFNAI is already in standard units)
    return out, as_z(now), as_z(before)


def _gdp(frames: Frames, sid: str = "GDPC1") -> tuple[dict, np.ndarray]:
    """Quarterly real GDP: q/q annualised and YoY, matched by calendar quarter."""
    start, grid = month_grid(frames.get(sid))
    qoq = growth(grid, 3, annualize=True)  # three months apart = one quarter; ratio ** 4 - 1
    last = start + len(grid) - 1
    with provenance.about(frames, sid):
        out = {"quarter": f"{last // 12}-Q{last % 12 // 3 + 1}",
               "quarter_start": date(last // 12, last % 12 + 1, 1).isoformat(),
               "level_bn_chained_usd": envelope.level(frames, sid, 1),
               "qoq_annualized_pct": envelope.rnd(qoq[-1], 2, "change from the quarter before, annualized, percent"),
               "prior_qoq_annualized_pct": envelope.rnd(qoq[-4] if len(qoq) > 3 else None, 2,
                                                        "annualized quarterly change one quarter earlier, percent"),
               "yoy_pct": month_pct_change(frames, sid, 12, 2, "percent change from 4 quarters earlier")}
    history = qoq[-HISTORY_MONTHS:]
    return out, history[np.isfinite(history)]


def _composite(parts: list) -> float | None:
    parts = [max(-Z_CAP, min(Z_CAP, p)) for p in parts if p is not None]
    return float(np.mean(parts)) if parts else None


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    data: dict = {}
    now_parts, before_parts, used, used_before = [], [], [], []
    for sid, name in MONTHLY.items():
        if frames.get(sid) is not None:
            data[name], z_now, z_before = _monthly_component(frames, sid)
            now_parts.append(z_now), before_parts.append(z_before)
            used += [sid] if z_now is not None else []
            used_before += [sid] if z_before is not None else []
    if frames.get("CFNAI") is not None:
        data["cfnai"], z_now, z_before = _cfnai(frames)
        now_parts.append(z_now), before_parts.append(z_before)
        used += ["CFNAI"] if z_now is not None else []
        used_before += ["CFNAI"] if z_before is not None else []
    gdp_history = np.array([])
    if frames.get("GDPC1") is not None:
        data["real_gdp"], gdp_history = _gdp(frames)
    composite, composite_before = _composite(now_parts), _composite(before_parts)
    # each figure names the components that entered it (a component with no z-score is left out)
    with provenance.about(frames, *used):
        composite_z = envelope.rnd(composite, 2, "mean of the capped component z-scores")
    with provenance.about(frames, *used_before):
        composite_before_z = envelope.rnd(composite_before, 2, "mean of the capped component z-scores 3 months earlier")
    with provenance.about(frames, *dict.fromkeys(used + used_before)):
        change_z = envelope.rnd(None if composite is None or composite_before is None else composite - composite_before,
                                2, "composite z-score minus its value 3 months earlier")
    nowcast = {"composite_z": composite_z, "composite_3m_ago_z": composite_before_z, "change_3m_z": change_z,
               "components_used": used, "state": _state(composite)}
    unavailable = {}
    if composite is not None and len(gdp_history) >= 8:
        # map the composite onto GDP's own history: median q/q annualised growth plus z robust standard
        # deviations (interquartile range / 1.349, so 2020's swings do not blow up the scale)
        q1, median, q3 = np.percentile(gdp_history, [25, 50, 75])
        with provenance.about(frames, "GDPC1"):
            nowcast["gdp_median_qoq_annualized_10y_pct"] = envelope.rnd(
                median, 2, "median annualized quarterly change over 10 years, percent")
        with provenance.about(frames, *used, "GDPC1"):
            nowcast["implied_gdp_annualized_pct"] = envelope.rnd(
                median + composite * (q3 - q1) / 1.349, 2,
                "GDP's 10-year median annualized growth plus the composite times its IQR / 1.349")
    else:
        unavailable["implied_gdp_annualized_pct"] = "needs the composite and at least 8 quarters of real GDP"
    data["nowcast"] = nowcast
    for sid, name in {**MONTHLY, "CFNAI": "cfnai", "GDPC1": "real_gdp"}.items():
        if frames.get(sid) is None:
            unavailable[name] = f"{sid} missing"
    signals = [_signal(data, sources)] if composite is not None else []
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=_summary(data) + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("labor_market", "employment beside activity"),
                              ("recession_probability", "the curve probit combined with labour signals"),
                              ("inflation", "the price side of the growth picture"),
                              ("macro_regime", "growth x inflation quadrant"),
                              ("economic_surprise", "data against trend-implied expectations")),
                          methodology="Monthly rates compare levels matched by calendar month (3-month rates "
                                      "annualised as ratio^4 - 1; GDP q/q annualised the same way). Nowcast composite: "
                                      "the mean of the z-scores of industrial production, retail sales (nominal) and "
                                      "durable goods 3-month annualised growth against their own last ten years, with "
                                      "the CFNAI 3-month average (already in standard units), each capped at "
                                      f"+/-{Z_CAP:.0f}; implied GDP growth is GDP's ten-year median q/q annualised "
                                      "growth plus the composite times its robust standard deviation (IQR/1.349). "
                                      "Above +0.5 is above trend, below -0.5 below trend, below -1 contraction risk; "
                                      f"CFNAI-MA3 under {CFNAI_RECESSION} is the Chicago Fed's recession signal.")


def _state(z: float | None) -> str | None:
    if z is None:
        return None
    return "above_trend" if z > 0.5 else "near_trend" if z >= -0.5 else "below_trend" if z >= -1 else \
        "contraction_risk"


def _signal(data: dict, sources: dict) -> dict:
    n = data["nowcast"]
    z, change = n["composite_z"], n["change_3m_z"] or 0.0
    cfnai_flag = data.get("cfnai", {}).get("recession_signal", False)
    gdp_negative = (data.get("real_gdp", {}).get("qoq_annualized_pct") or 0.0) < 0
    if z < -0.5 or cfnai_flag or (gdp_negative and z < 0):
        direction = "bearish"
        urgency = "high" if z < -1 or cfnai_flag else "medium"
    elif z > 0.25 and change >= 0:
        direction, urgency = "bullish", "low"
    else:
        direction, urgency = "neutral", "low"
    reason = f"activity composite z {z} ({n['state']}), 3-month change {fig(n['change_3m_z'])}" + \
        (", CFNAI-MA3 below the recession threshold" if cfnai_flag else "")
    confidence = 0.45 + min(0.35, abs(z) / 3) + 0.03 * len(n["components_used"])
    return envelope.signal("growth_momentum", direction,
                           envelope.degrade(confidence, sources, essential=["INDPRO", "CFNAI"]),
                           urgency, reason + " (direction refers to risk assets)")


def _summary(data: dict) -> str:
    parts = []
    for name, label in LABELS.items():
        d = data.get(name)
        if d:
            parts.append(f"{label[0].upper() + label[1:]} for {d['period']}: {fig(d['annualized_3m_pct'], '%')} "
                         f"annualised over three months, {fig(d['yoy_pct'], '%')} year on year.")
    c = data.get("cfnai")
    if c:
        parts.append(f"The CFNAI was {c['level']} in {c['period']} (3-month average {fig(c['ma3'])}"
                     + (", below the recession threshold)." if c["recession_signal"] else ")."))
    g = data.get("real_gdp")
    if g:
        parts.append(f"Real GDP growth was {fig(g['qoq_annualized_pct'], '%')} annualised in {g['quarter']} "
                     f"({fig(g['yoy_pct'], '%')} year on year).")
    n = data["nowcast"]
    if n["composite_z"] is not None:
        parts.append(f"The activity nowcast composite is {n['composite_z']} ({n['state'].replace('_', ' ')})"
                     + (f", implying {n['implied_gdp_annualized_pct']}% annualised GDP growth."
                        if n.get("implied_gdp_annualized_pct") is not None else "."))
    return " ".join(parts)


register(Module(name=NAME, category="macro", tier="S", inputs=INPUTS,
                description="Activity nowcast from the monthly data, real GDP growth, momentum",
                compute=compute, lookback_days=3700))
