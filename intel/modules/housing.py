"""housing: starts, new home sales, the 30-year mortgage rate, home prices YoY and affordability pressure."""
from __future__ import annotations

from datetime import date, timedelta

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, growth, signed
from intel.modules._monthly import Monthly, asof_values, month_obs, monthly
from intel.registry import Module, register

NAME = "housing"
INPUTS = ("HOUST", "HSN1F", "MORTGAGE30US", "CSUSHPINSA")
LOAN_USD, TERM_MONTHS = 100_000, 360
# affordability pressure bands on the 1-year change of the monthly payment (percent)
PRESSURE_BANDS = ((10.0, "high"), (3.0, "elevated"), (-3.0, "stable"))


def payment(rate_pct) -> np.ndarray:
    """Monthly principal and interest on LOAN_USD over a 30-year fixed loan at an annual rate in percent."""
    r = np.asarray(rate_pct, dtype=float) / 1200
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(r > 0, r / (1 - (1 + r) ** -TERM_MONTHS), 1 / TERM_MONTHS)
    return LOAN_USD * factor


YOY = "percent change from the same month a year earlier"


def activity(frames: Frames, sid: str, m: Monthly) -> dict:
    """A seasonally adjusted annual-rate series (thousands): level, changes, 3-month averages."""
    v = m.values
    avg = np.convolve(v, np.ones(3) / 3, mode="full")[: len(v)] if len(v) >= 3 else np.full(len(v), np.nan)
    avg[:2] = np.nan
    history = v[-120:]
    last = month_obs(frames, sid, m)
    with provenance.about(frames, sid):
        return {"period": m.period(), "level_thousands_saar": envelope.level(frames, sid, 0),
                "mom_pct": envelope.change_obs(last, month_obs(frames, sid, m, -2), "pct", 2,
                                      "percent change from the previous month"),
                "yoy_pct": envelope.change_obs(last, month_obs(frames, sid, m, -13), "pct", 2, YOY),
                "avg_3m_thousands_saar": envelope.rnd(avg[-1], 1, "mean of the last three months"),
                # the 3-month average against the same three months a year earlier (monthly data are noisy)
                "avg_3m_yoy_pct": envelope.rnd(growth(avg, 12)[-1], 2, "3-month mean against the same three months a "
                                                                       "year earlier, percent change"),
                "percentile_10y": envelope.rnd(indicators.percentile_of(history, m.at(), 12), 1,
                                               "percentile rank within the last ten years of monthly readings")}


def mortgage(frames: Frames) -> dict:
    sid = "MORTGAGE30US"
    frame = frames.get(sid)
    year = indicators.window(frame, 365)["value"].to_numpy()
    level = float(frame["value"][-1])
    last = envelope.last_obs(frames, sid)
    with provenance.about(frames, sid):
        return {"as_of": frame["date"][-1].isoformat(), "level_pct": envelope.level(frames, sid, 2),
                "change_1m_bp": envelope.change_obs(last, envelope.obs_days_before(frames, sid, 30), "bp", 0,
                                           "change since the rate 30 days earlier, in bp"),
                "change_1y_bp": envelope.change_obs(last, envelope.obs_days_before(frames, sid, 364), "bp", 0,
                                           "change since the rate 52 weeks earlier, in bp"),
                "high_1y_pct": envelope.rnd(year.max(), 2, "highest rate of the past year"),
                "low_1y_pct": envelope.rnd(year.min(), 2, "lowest rate of the past year"),
                "percentile_10y": envelope.rnd(
                    indicators.percentile_rank(indicators.window(frame, 3653)["value"], level), 1,
                    "percentile rank within the past 10 years")}


def prices(frames: Frames, m: Monthly) -> dict:
    sid = "CSUSHPINSA"
    yoy = growth(m.values, 12)  # not seasonally adjusted: only year-on-year comparisons
    at = lambda i: month_obs(frames, sid, m, i)  # noqa: E731
    with provenance.about(frames, sid):
        return {"period": m.period(), "index_level": envelope.level(frames, sid, 2),
                "yoy_pct": envelope.change_obs(at(-1), at(-13), "pct", 2, YOY),
                "yoy_3m_ago_pct": envelope.change_obs(at(-4), at(-16), "pct", 2, "year-over-year change three months "
                                                                               "earlier, percent"),
                "yoy_change_3m_pp": envelope.rnd(yoy[-1] - yoy[-4] if len(yoy) >= 4 else None, 2,
                                                 "change of the year-over-year rate over three months")}


def affordability(frames: Frames, hpi: Monthly | None) -> tuple[dict, dict]:
    """Change of the monthly payment on the same (index-priced) home over a year: price growth times the
    payment change the mortgage rate alone brings, and the payment level against ten years of history."""
    rate = frames.get("MORTGAGE30US")
    now_pay = float(payment(rate["value"][-1]))
    base = indicators.value_days_before(rate, 364)
    with provenance.about(frames, "MORTGAGE30US"):
        out = {"payment_per_100k_usd": envelope.rnd(now_pay, 2, "monthly payment on 100k USD at the latest rate"),
               "payment_per_100k_1y_ago_usd": envelope.rnd(payment(base) if base is not None else None, 2,
                                                           "monthly payment on 100k USD at the rate 52 weeks earlier"),
               "rate_effect_1y_pct": envelope.rnd(
                   (now_pay / float(payment(base)) - 1) * 100 if base is not None else None, 2,
                   "percent change of the payment the rate alone brings over a year")}
    unavailable = {}
    price_yoy = growth(hpi.values, 12)[-1] if hpi is not None else np.nan
    both = ("MORTGAGE30US", "CSUSHPINSA")
    if np.isfinite(price_yoy) and base is not None:
        change = ((1 + price_yoy / 100) * now_pay / float(payment(base)) - 1) * 100
        out["price_effect_1y_pct"] = envelope.change_obs(month_obs(frames, "CSUSHPINSA", hpi),
                                                         month_obs(frames, "CSUSHPINSA", hpi, -13), "pct", 2, YOY)
        with provenance.about(frames, *both, operation="percent change of the payment on the same home over a year"):
            out["payment_change_1y_pct"] = envelope.rnd(change, 2)
        out["pressure"] = next((label for floor, label in PRESSURE_BANDS if change > floor), "easing")
    else:
        unavailable["payment_change_1y_pct"] = "needs a year of both home prices and mortgage rates"
    if hpi is not None:
        # payment index: home price index x payment per 100k at the rate on each month's last day
        months = np.arange(hpi.start, hpi.start + len(hpi.values))
        ends = [date(k // 12, k % 12 + 1, 1) - timedelta(days=1) for k in months + 1]
        history = (hpi.values * payment(asof_values(rate, ends)))[-120:]
        latest = hpi.values[np.isfinite(hpi.values)][-1] * now_pay
        with provenance.about(frames, *both,
                              operation="percentile rank of home price index x payment within ten years"):
            out["payment_index_percentile_10y"] = envelope.rnd(indicators.percentile_of(history, latest, 12), 1)
    return out, unavailable


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    data, unavailable = _figures(frames)
    return envelope.build(NAME, frames, data=data, signals=_signals(data, sources),
                          summary=_summary(data) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("treasury_yields", "the 10-year yield mortgage rates follow"),
                              ("fed_policy", "the policy path behind mortgage rates"),
                              ("inflation", "shelter's weight in consumer prices"),
                              ("growth", "housing within the activity nowcast"),
                              ("economic_surprise", "starts against their trend")),
                          methodology="Payment = principal and interest on a 100k USD 30-year fixed loan. "
                                      "Affordability pressure = (1 + Case-Shiller YoY) x payment at today's rate / "
                                      "payment at the rate 52 weeks earlier - 1: above 10% high, above 3% elevated, "
                                      "above -3% stable, else easing. The payment index (price index x payment) is "
                                      "ranked against its last ten years at month-end rates. Starts and sales compare "
                                      "3-month averages year on year.",
                          unavailable=unavailable or None)


def _figures(frames: Frames) -> tuple[dict, dict]:
    """The blocks of the inputs present (activity, mortgage rate, home prices, affordability) and what is missing."""
    starts, sales, hpi = (monthly(frames.get(s)) if frames.get(s) is not None else None
                          for s in ("HOUST", "HSN1F", "CSUSHPINSA"))
    rate = frames.get("MORTGAGE30US")
    data: dict = {}
    unavailable: dict = {}
    if starts is not None:
        data["housing_starts"] = activity(frames, "HOUST", starts)
    if sales is not None:
        data["new_home_sales"] = activity(frames, "HSN1F", sales)
    if rate is not None:
        data["mortgage_rate_30y"] = mortgage(frames)
    if hpi is not None:
        data["home_prices"] = prices(frames, hpi)
    if rate is not None:
        data["affordability"], missing = affordability(frames, hpi)
        unavailable.update(missing)
    else:
        unavailable["affordability"] = "MORTGAGE30US missing"
    return data, unavailable


def _signals(data: dict, sources: dict) -> list[dict]:
    signals = []
    moves = [(label, data[key]["avg_3m_yoy_pct"]) for key, label in
             (("housing_starts", "starts"), ("new_home_sales", "new home sales"))
             if key in data and data[key]["avg_3m_yoy_pct"] is not None]
    if moves:
        mean = float(np.mean([m for _, m in moves]))
        direction = "bullish" if mean > 5 else "bearish" if mean < -10 else "neutral"
        urgency = "high" if mean < -25 else "medium" if direction == "bearish" else "low"
        confidence = envelope.degrade(0.4 + min(0.45, abs(mean) / 60), sources, essential=["HOUST"])
        signals.append(envelope.signal("housing_activity", direction, confidence, urgency,
                                       ", ".join(f"{label} {signed(m)}% year on year (3-month average)"
                                                 for label, m in moves)
                                       + "; direction refers to growth and housing-linked equities"))
    aff = data.get("affordability", {})
    change = aff.get("payment_change_1y_pct")
    if change is not None:
        pct = aff.get("payment_index_percentile_10y")
        stretched = (pct or 0) > 90  # payments near their highest of ten years
        if change > 3:
            direction = "bearish"
        elif change < -3:
            direction = "neutral" if stretched else "bullish"  # easing from a stretched level is not relief yet
        else:
            direction = "bearish" if stretched else "neutral"
        urgency = "high" if change > 20 else "medium" if change > 10 else "low"
        confidence = envelope.degrade(0.45 + min(0.4, abs(change) / 40), sources,
                                      essential=["MORTGAGE30US", "CSUSHPINSA"])
        signals.append(envelope.signal("affordability_pressure", direction, confidence, urgency,
                                       f"payment on the same home {signed(change)}% over a year ({aff['pressure']}), "
                                       f"payment index at the {fig(pct)} percentile of ten years"))
    return signals


def _summary(data: dict) -> str:
    sentences = []
    for key, label in (("housing_starts", "Housing starts"), ("new_home_sales", "New home sales")):
        if key in data:
            d = data[key]
            sentences.append(f"{label} ran at {d['level_thousands_saar']} thousand (annual rate) in {d['period']}, "
                             f"{signed(d['avg_3m_yoy_pct'])}% on a year earlier over three months.")
    if "mortgage_rate_30y" in data:
        r = data["mortgage_rate_30y"]
        sentences.append(f"The 30-year mortgage rate is {r['level_pct']}% "
                         f"({signed(r['change_1y_bp'])} bp on the year).")
    if "home_prices" in data:
        sentences.append(f"Case-Shiller home prices are {signed(data['home_prices']['yoy_pct'])}% year on year "
                         f"to {data['home_prices']['period']}.")
    aff = data.get("affordability", {})
    change = aff.get("payment_change_1y_pct")
    if change is not None:
        sentences.append(f"Affordability pressure is {aff['pressure']}: the monthly payment on the same home is "
                         f"{signed(change)}% on a year ago.")
    elif "mortgage_rate_30y" in data:
        sentences.append("Affordability pressure is not available without a year of home prices and rates.")
    return " ".join(sentences)


register(Module(name=NAME, category="macro", tier="S", inputs=INPUTS,
                description="starts, sales, mortgage rate, prices YoY, affordability pressure",
                compute=compute, lookback_days=3700))
