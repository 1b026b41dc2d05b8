"""consumer: Michigan sentiment, 1-year inflation expectations and the real retail sales trend."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, growth, signed
from intel.modules._monthly import Monthly, aligned, month_obs, monthly, trim_to_last_finite
from intel.registry import Module, register

NAME = "consumer"
CORE = ("UMCSENT", "MICH", "RSXFS")
INPUTS = CORE + ("CPIAUCSL",)  # CPI deflates retail sales; without it the sales figures stay nominal
HISTORY_MONTHS = 120  # z-scores and percentiles against the last ten years of monthly readings


def _survey(frames: Frames, sid: str, m: Monthly, level_unit: str, unit: str) -> dict:
    """Level, 1- and 12-month changes and standing against the last ten years of a monthly survey: the level
    and changes from named monthly readings, the rest from the survey's history."""
    v = m.values
    level = m.at()
    history = v[-HISTORY_MONTHS:]
    finite = history[np.isfinite(history)]
    last = month_obs(frames, sid, m)
    with provenance.about(frames, sid):
        return {"period": m.period(), f"level_{level_unit}": envelope.level(frames, sid, 2),
                f"change_1m_{unit}": envelope.change_obs(last, month_obs(frames, sid, m, -2), "diff", 2,
                                                         "change from the previous month"),
                f"change_12m_{unit}": envelope.change_obs(last, month_obs(frames, sid, m, -13), "diff", 2,
                                                          "change from the same month a year earlier"),
                "avg_3m": envelope.rnd(np.nanmean(v[-3:]), 2, "mean of the last three months"),
                "mean_10y": envelope.rnd(finite.mean() if len(finite) >= 12 else None, 2, "mean of the last ten years"),
                "zscore_10y": envelope.rnd(indicators.zscore_of(history, level, 12), 2,
                                           "z-score against the last ten years of monthly readings"),
                "percentile_10y": envelope.rnd(indicators.percentile_of(history, level, 12), 1,
                                               "percentile rank within the last ten years of monthly readings")}


def _sales(m: Monthly, prefix: str, exact: tuple = ()) -> dict:
    """Growth rates of a monthly level; `exact`: the month-on-month and year-on-year changes already made
    from named observations (nominal sales), which replace the grid's."""
    v = m.values
    three = growth(v, 3, annualize=True)[-1]
    # the last three months' average against the three before it: smoother than one month's change
    avg_change = (np.mean(v[-3:]) / np.mean(v[-6:-3]) - 1) * 100 if len(v) >= 6 else np.nan
    mom, yoy = exact or (envelope.rnd(growth(v, 1)[-1], 2, "percent change from the previous month"),
                         envelope.rnd(growth(v, 12)[-1], 2, "percent change from the same month a year earlier"))
    return {f"{prefix}mom_pct": mom, f"{prefix}yoy_pct": yoy,
            f"{prefix}annualized_3m_pct": envelope.rnd(three, 2, "3-month growth, annualized, percent"),
            f"{prefix}annualized_6m_pct": envelope.rnd(growth(v, 6, annualize=True)[-1], 2,
                                                       "6-month growth, annualized, percent"),
            f"{prefix}avg_3m_vs_prior_3m_pct": envelope.rnd(avg_change, 2, "mean of the last three months against "
                                                                           "the three before, percent change")}


def _trend(pct) -> str | None:
    if pct is None:
        return None
    return "rising" if pct > 1 else "falling" if pct < -1 else "flat"


def retail(frames: Frames, rsxfs: Monthly, cpi: Monthly | None) -> tuple[dict, dict]:
    last = month_obs(frames, "RSXFS", rsxfs)
    with provenance.about(frames, "RSXFS"):
        exact = (envelope.change_obs(last, month_obs(frames, "RSXFS", rsxfs, -2), "pct", 2,
                                     "percent change from the previous month"),
                 envelope.change_obs(last, month_obs(frames, "RSXFS", rsxfs, -13), "pct", 2,
                                     "percent change from the same month a year earlier"))
        out = {"period": rsxfs.period(), "level_bn": envelope.level(frames, "RSXFS", 1, scale=1 / 1000,
                                                                    op="latest value, in billions"),
               **_sales(rsxfs, "nominal_", exact)}
    unavailable = {}
    real = prices = None
    if cpi is not None:
        sales, prices = aligned(rsxfs, cpi)
        # in dollars of the latest CPI month both share, so the level stays readable
        real = trim_to_last_finite(Monthly(sales.start, sales.values / prices.values))
    if real is not None and np.isfinite(real.values).sum() >= 2:
        deflator = prices.values[len(real.values) - 1]
        with provenance.about(frames, "RSXFS", "CPIAUCSL"):
            out.update({"real_period": real.period(),
                        "real_level_bn": envelope.rnd(real.at() * deflator / 1000, 1,
                                                      "retail sales / CPI, in billions of dollars of the latest CPI "
                                                      "month both share"),
                        **_sales(real, "real_")})
        out["trend"] = _trend(out["real_annualized_3m_pct"])
        out["trend_basis"] = "real"
    else:
        unavailable["real_retail_sales"] = ("CPIAUCSL missing: retail sales are nominal, not deflated"
                                           if cpi is None else "too few months where retail sales and CPI overlap")
        out["trend"] = _trend(out["nominal_annualized_3m_pct"])
        out["trend_basis"] = "nominal"
    return out, unavailable


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, CORE)
    sources = envelope.data_sources(frames, INPUTS)
    sent, mich, rsxfs, cpi = (monthly(frames.get(s)) if frames.get(s) is not None else None for s in INPUTS)
    data: dict = {}
    unavailable: dict = {}
    if sent is not None:
        data["sentiment"] = _survey(frames, "UMCSENT", sent, "index", "pts")
    if mich is not None:
        data["inflation_expectations_1y"] = exp = _survey(frames, "MICH", mich, "pct", "pp")
        cpi_yoy = growth(cpi.values, 12)[-1] if cpi is not None else np.nan
        yoy_op = "percent change from the same month a year earlier"
        exp["cpi_yoy_pct"] = envelope.change_obs(month_obs(frames, "CPIAUCSL", cpi),
                                                 month_obs(frames, "CPIAUCSL", cpi, -13),
                                                 "pct", 2, yoy_op) if cpi is not None else None
        with provenance.about(frames, "MICH", "CPIAUCSL", operation="expected inflation minus CPI year-over-year"):
            exp["gap_to_cpi_yoy_pp"] = envelope.rnd(mich.at() - cpi_yoy, 2)
    if rsxfs is not None:
        data["retail_sales"], missing = retail(frames, rsxfs, cpi)
        unavailable.update(missing)

    signals = []
    parts, reasons = [], []
    if "sentiment" in data and data["sentiment"]["zscore_10y"] is not None:
        z = data["sentiment"]["zscore_10y"]
        parts.append(float(np.clip(z / 2, -1, 1)))
        reasons.append(f"sentiment z-score {z}")
    rs = data.get("retail_sales")
    basis = rs["trend_basis"] if rs else None
    growth_3m = rs.get(f"{basis}_annualized_3m_pct") if rs else None
    if growth_3m is not None:
        parts.append(float(np.clip(growth_3m / 5, -1, 1)))
        reasons.append(f"{basis} retail sales {signed(growth_3m)}% annualized over three months")
    if parts:
        score = float(np.mean(parts))
        behind = (["UMCSENT"] if "sentiment" in data and data["sentiment"]["zscore_10y"] is not None else []) + \
            (["RSXFS"] + (["CPIAUCSL"] if basis == "real" else []) if growth_3m is not None else [])
        with provenance.about(frames, *behind, operation="mean of the clipped sentiment z-score / 2 and 3-month "
                                                         "annualized sales growth / 5"):
            data["consumer_score"] = envelope.rnd(score, 2)
        direction = "bullish" if score > 0.2 else "bearish" if score < -0.2 else "neutral"
        weak = (growth_3m is not None and growth_3m < -5) and (data.get("sentiment", {}).get("zscore_10y") or 0) < -1.5
        urgency = "high" if weak else "medium" if abs(score) > 0.6 else "low"
        confidence = (0.4 + min(0.45, abs(score) / 2)) * (0.8 if basis == "nominal" else 1.0)
        confidence = envelope.degrade(confidence, sources, essential=["UMCSENT", "RSXFS"])
        signals.append(envelope.signal("consumer_health", direction, confidence, urgency,
                                       ", ".join(reasons) + f" (score {data['consumer_score']}; direction refers "
                                       "to growth and cyclical equities)"))
    exp = data.get("inflation_expectations_1y")
    if exp is not None:
        z, level = exp["zscore_10y"], exp["level_pct"]
        if level >= 4 or (z is not None and z > 1.5):
            direction, urgency = "bearish", "high" if level >= 5 else "medium"
        elif level < 3 and (z is None or z < 0):
            direction, urgency = "bullish", "low"
        else:
            direction, urgency = "neutral", "low"
        confidence = envelope.degrade(0.45 + min(0.4, abs(z or 0) / 4), sources, essential=["MICH"])
        signals.append(envelope.signal("inflation_expectations", direction, confidence, urgency,
                                       f"1-year expectations at {level}% (z-score {fig(z)}); direction refers to "
                                       "bonds"))

    sentences = []
    if "sentiment" in data:
        s = data["sentiment"]
        sentences.append(f"Michigan consumer sentiment was {s['level_index']} in {s['period']} "
                         f"({signed(s['change_1m_pts'])} on the month, z-score {fig(s['zscore_10y'])} against "
                         "ten years).")
    if exp is not None:
        sentences.append(f"One-year inflation expectations are {exp['level_pct']}%"
                         + (f", {signed(exp['gap_to_cpi_yoy_pp'])} pp against CPI inflation of {exp['cpi_yoy_pct']}%."
                            if exp["gap_to_cpi_yoy_pp"] is not None else "."))
    if rs is not None:
        if rs["trend_basis"] == "real":
            sentences.append(f"Real retail sales (deflated by CPI) to {rs['real_period']} ran "
                             f"{fig(rs['real_annualized_3m_pct'], '%')} annualized over three months and "
                             f"{fig(rs['real_yoy_pct'], '%')} year on year, a {rs['trend']} trend.")
        else:
            sentences.append(f"Retail sales to {rs['period']} are nominal only (no CPI to deflate them): "
                             f"{fig(rs['nominal_annualized_3m_pct'], '%')} annualized over three months, "
                             f"a {rs['trend'] or 'undetermined'} trend.")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=" ".join(sentences) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("inflation", "the realized inflation behind expectations"),
                              ("labor_market", "jobs and income behind spending"),
                              ("growth", "consumption within the activity nowcast"),
                              ("economic_surprise", "how retail sales and sentiment compare with trend"),
                              ("macro_regime", "the growth x inflation quadrant")),
                          methodology="Monthly series are matched by calendar month. Real retail sales = RSXFS / "
                                      "CPIAUCSL, expressed in dollars of the latest CPI month; trend is rising above "
                                      "+1% and falling below -1% annualized over three months. Consumer score = mean "
                                      "of the sentiment 10-year z-score / 2 and the 3-month annualized sales growth / "
                                      "5, each clipped to -1..1; above 0.2 bullish, below -0.2 bearish.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="macro", tier="S", inputs=INPUTS,
                description="sentiment, inflation expectations, real retail sales trend",
                compute=compute, lookback_days=3700))
