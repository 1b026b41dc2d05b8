"""copper_gold_ratio: the copper/gold ratio is a growth gauge that tracks the 10-year yield. Copper is the IMF's
monthly average, gold the World Bank's (GOLD_MONTHLY): both averages of the same calendar months, so the ratio
is copper's USD per pound over gold's USD per troy ounce, month by month. It is read against the 10-year yield
(momentum, yield changes over the same months, rolling correlation and beta of monthly changes, and the yield
change the ratio's move implies). Where the provider has no gold, copper is read alone, and said so."""
from __future__ import annotations

import math

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._commodities import monthly_means, observed_monthly_change, percentile_of_last
from intel.modules._common import fig, month_keys, month_label, pct_word
from intel.registry import Module, register

NAME = "copper_gold_ratio"
COPPER, GOLD, TEN = "PCOPPUSDM", "GOLD_MONTHLY", "DGS10"
POUNDS_PER_TONNE = 2204.62262
NO_GOLD = ("no gold observations (GOLD_MONTHLY) for copper's months, so the copper/gold ratio cannot be computed; "
           "copper is shown alone against the 10-year yield")
NO_GOLD_FACTOR = 0.85  # copper alone mixes growth with dollar and supply moves the ratio would cancel
SHORT_CORR, LONG_CORR, MIN_PAIRS = 24, 60, 12  # months in the correlation windows; fewer pairs: no figure
TREND_PCT, STRONG_PCT, GAP_BP = 5.0, 20.0, 50.0


def ratio_series(frames: Frames) -> tuple[np.ndarray, np.ndarray] | None:
    """(month keys, copper USD per pound / gold USD per troy ounce) over the months both averages cover."""
    gold = frames.get(GOLD)
    if gold is None:
        return None
    copper = frames.get(COPPER)
    common, ic, ig = np.intersect1d(month_keys(copper), month_keys(gold), return_indices=True)
    if not len(common):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = copper["value"].to_numpy()[ic] / POUNDS_PER_TONNE / gold["value"].to_numpy()[ig]
    return common, ratio


def ratio_block(frames: Frames, months: np.ndarray, ratio: np.ndarray) -> dict:
    """The ratio's last month, its changes over matched calendar months and its standing over ten years."""
    by_month = dict(zip(months.tolist(), ratio.tolist()))
    last = int(months[-1])
    out = {"unit": "copper USD per pound / gold USD per troy ounce", "period": month_label(last)}
    with provenance.about(frames, COPPER, GOLD):
        out["value"] = envelope.rnd(ratio[-1], 7, "copper (USD per tonne / 2204.62262) over gold, same month")
        for n in (1, 3, 6, 12):
            base = by_month.get(last - n)
            out[f"change_{n}m_pct"] = envelope.rnd(None if not base else (ratio[-1] / base - 1) * 100, 2,
                                                   f"change of the ratio against the month {n} earlier, percent")
        out["percentile_10y"] = envelope.rnd(percentile_of_last(ratio, 120), 1,
                                             "percentile rank within the last 120 monthly ratios")
    return out


def yield_block(frames: Frames, copper_months: np.ndarray, copper: np.ndarray, driver: tuple[str, ...],
                label: str) -> dict:
    """The 10-year yield by monthly average, matched to the months of the driver (`label`: the ratio, or copper
    alone, read from the series in `driver`)."""
    ten = frames.get(TEN)
    months, avg = monthly_means(ten)
    by_month = dict(zip(months.tolist(), avg.tolist()))
    last_month = int(copper_months[-1])
    out = {"last_pct": envelope.level(frames, TEN, 2), "last_date": ten["date"][-1].isoformat()}
    with provenance.about(frames, TEN):
        out["average_in_copper_month_pct"] = envelope.rnd(by_month.get(last_month), 3,
                                                          f"mean of DGS10 over the last calendar month of {label}")
        for n in (3, 6, 12):
            a, b = by_month.get(last_month), by_month.get(last_month - n)
            out[f"change_{n}m_bp"] = envelope.rnd(None if a is None or b is None else (a - b) * 100, 1,
                                                  f"change of the monthly mean of DGS10 over {n} months, bp")
    with provenance.about(frames, *driver, TEN):
        out.update(_copper_against_yield(copper_months, copper, months, avg, by_month, last_month, label))
    return out


def _copper_against_yield(copper_months, copper, months, avg, by_month: dict, last_month: int, label: str) -> dict:
    """Correlation and beta of monthly changes, and the six-month yield change the driver's move implies."""
    out = {}

    # monthly changes on consecutive months both series cover: the driver in log %, the yield in bp
    common, ic, iy = np.intersect1d(copper_months, months, return_indices=True)
    consecutive = np.flatnonzero(np.diff(common) == 1) + 1
    c, y = copper[ic], avg[iy]
    with np.errstate(divide="ignore", invalid="ignore"):
        dc = np.log(c[consecutive] / c[consecutive - 1]) * 100
    dy = (y[consecutive] - y[consecutive - 1]) * 100
    ok = np.isfinite(dc) & np.isfinite(dy)
    dc, dy = dc[ok], dy[ok]
    for n in (SHORT_CORR, LONG_CORR):
        out[f"correlation_monthly_changes_{n}m"] = envelope.rnd(
            indicators.pearson(dc[-n:], dy[-n:], MIN_PAIRS), 2,
            f"correlation of monthly log changes of {label} and DGS10 changes over the last {n} month pairs")
    x, z = dc[-LONG_CORR:], dy[-LONG_CORR:]
    beta = float(np.cov(x, z, ddof=1)[0, 1] / np.var(x, ddof=1)) if len(x) >= MIN_PAIRS and np.var(x) > 0 else None
    out["beta_60m_bp_per_pct"] = envelope.rnd(beta, 2, f"regression slope of monthly DGS10 changes (bp) on log changes "
                                                       f"of {label} (%) over the last 60 month pairs")
    out["pairs_60m"] = envelope.count(len(x), "count of month pairs in the 60-month window")
    now, six = by_month.get(last_month), by_month.get(last_month - 6)
    base = copper[copper_months == last_month - 6]
    # the yield may stop before the driver's last month (a stale 10-year series): then there is no gap to show
    if beta is not None and now is not None and six is not None and len(base) and base[-1] > 0:
        implied = beta * math.log(copper[-1] / base[-1]) * 100
        actual = (now - six) * 100
        out["implied_change_6m_bp"] = envelope.rnd(implied, 1, f"beta times the six-month log change of {label}")
        out["gap_to_implied_6m_bp"] = envelope.rnd(actual - implied, 1, "six-month change of the monthly mean yield "
                                                                        f"minus the change {label} implies")
    else:
        out["implied_change_6m_bp"] = out["gap_to_implied_6m_bp"] = None
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [COPPER], need="all")
    sources = envelope.data_sources(frames, [COPPER, GOLD, TEN])
    frame = frames.get(COPPER)
    months, values = month_keys(frame), frame["value"].to_numpy()
    with provenance.about(frames, COPPER):
        copper = {"price_usd_per_tonne": envelope.level(frames, COPPER, 2), "period": frame["date"][-1].isoformat()[:7],
                  **{f"change_{n}m_pct": observed_monthly_change(frames, COPPER, n) for n in (1, 3, 6, 12)},
                  "percentile_10y": envelope.rnd(percentile_of_last(values, 120), 1,
                                                 "percentile rank within the last 120 monthly averages")}
    pairs = ratio_series(frames)
    data = {"ratio_available": pairs is not None, "gold_series": GOLD if pairs is not None else None,
            "copper": copper}
    unavailable = {}
    if pairs is not None:
        data["ratio"] = ratio_block(frames, *pairs)
        with provenance.about(frames, GOLD):
            data["gold"] = {"price_usd_per_troy_ounce": envelope.level(frames, GOLD, 2),
                            "period": frames.get(GOLD)["date"][-1].isoformat()[:7],
                            **{f"change_{n}m_pct": observed_monthly_change(frames, GOLD, n) for n in (1, 3, 6, 12)}}
        driver, label, moves = (COPPER, GOLD), "the copper/gold ratio", data["ratio"]
        d_months, d_values = pairs
    else:
        unavailable["copper_gold_ratio"] = NO_GOLD
        driver, label, moves = (COPPER,), "copper", copper
        d_months, d_values = months, values
    if frames.get(TEN) is not None:
        data["ten_year"] = yield_block(frames, d_months, d_values, driver, label)
    else:
        unavailable["ten_year"] = f"no DGS10 observations: {label} cannot be compared with the 10-year yield"

    factor = 1.0 if pairs is not None else NO_GOLD_FACTOR
    signals = []
    momentum = moves["change_6m_pct"] if moves["change_6m_pct"] is not None else moves["change_3m_pct"]
    if momentum is not None:
        direction = "bullish" if momentum > TREND_PCT else "bearish" if momentum < -TREND_PCT else "neutral"
        confidence = envelope.degrade((0.45 + min(0.3, abs(momentum) / 60)) * factor, sources, driver)
        alone = "" if pairs is not None else ", copper alone (no gold series)"
        signals.append(envelope.signal("copper_growth_momentum", direction, confidence,
                                       "medium" if abs(momentum) >= STRONG_PCT else "low",
                                       f"{label} {pct_word(momentum)} over "
                                       f"{'six' if momentum == moves['change_6m_pct'] else 'three'} months{alone} "
                                       "(direction refers to growth-sensitive assets)"))
    ten = data.get("ten_year")
    if ten and ten["gap_to_implied_6m_bp"] is not None:
        gap, corr = ten["gap_to_implied_6m_bp"], ten["correlation_monthly_changes_60m"] or 0
        confidence = envelope.degrade((0.35 + min(0.35, abs(corr) * 0.5)) * factor, sources, [*driver, TEN])
        signals.append(envelope.signal("copper_yield_divergence", "neutral", confidence,
                                       "medium" if abs(gap) >= GAP_BP else "low",
                                       f"10-year yield changed {fig(ten['change_6m_bp'])} bp over six months against "
                                       f"{ten['implied_change_6m_bp']} bp implied by {label} (gap {gap} bp)"))

    text = summary(data, copper, label)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=text + envelope.staleness_note(sources),
                          sources=sources,
                          related_modules=envelope.related(
                              ("commodities_overview", "copper and gold beside oil, gasoline and the broad index"),
                              ("treasury_yields", "the 10-year yield in detail"),
                              ("growth", "the activity data copper is read against"),
                              ("real_yields", "real rates and breakevens behind the 10-year")),
                          methodology="Copper is the IMF monthly average, gold the World Bank's monthly average of "
                                      "London prices (GOLD_MONTHLY); the ratio is copper in USD per pound over gold in "
                                      "USD per troy ounce for each month both cover, and the 10-year yield is averaged "
                                      "over the same calendar months. Correlation and beta use monthly changes (the "
                                      "ratio's log % against the yield in bp) over the last 24 and 60 month pairs; the "
                                      "implied six-month yield change is that beta times the ratio's six-month log "
                                      "change. Without gold the same is done with copper alone, and said so.",
                          unavailable=unavailable or None)


def summary(data: dict, copper: dict, label: str) -> str:
    if data["ratio_available"]:
        r = data["ratio"]
        text = (f"The copper/gold ratio was {r['value']} ({r['unit']}) in {r['period']}, "
                f"{pct_word(r['change_3m_pct'])} over three months, {pct_word(r['change_6m_pct'])} over six and "
                f"{pct_word(r['change_12m_pct'])} over a year (10-year percentile {fig(r['percentile_10y'])}); "
                f"copper averaged {copper['price_usd_per_tonne']} USD per tonne and gold "
                f"{data['gold']['price_usd_per_troy_ounce']} USD per troy ounce in {data['gold']['period']}.")
    else:
        text = (f"The copper/gold ratio is unavailable because there are no gold observations ({GOLD}); copper is "
                f"read alone against the 10-year yield. Copper averaged {copper['price_usd_per_tonne']} USD per "
                f"tonne in {copper['period']}, {pct_word(copper['change_3m_pct'])} over three months, "
                f"{pct_word(copper['change_6m_pct'])} over six and {pct_word(copper['change_12m_pct'])} over a year "
                f"(10-year percentile {fig(copper['percentile_10y'])}).")
    ten = data.get("ten_year")
    if ten:
        text += (f" The 10-year yield averaged {fig(ten['average_in_copper_month_pct'], '%')} that month, a change of "
                 f"{fig(ten['change_6m_bp'])} bp over six months; monthly changes of {label} and the yield correlate "
                 f"{fig(ten['correlation_monthly_changes_24m'])} over the past two years and "
                 f"{fig(ten['correlation_monthly_changes_60m'])} over five.")
        if ten["implied_change_6m_bp"] is not None:
            text += (f" The move of {label} implies a six-month yield change of {ten['implied_change_6m_bp']} bp, "
                     f"a gap of {ten['gap_to_implied_6m_bp']} bp.")
    else:
        text += " The 10-year yield is missing, so the comparison with rates is unavailable."
    return text


register(Module(name=NAME, category="commodities", tier="S", inputs=(COPPER, GOLD, TEN),
                description="Copper/gold ratio where gold exists (copper alone, said so) vs DGS10",
                compute=compute, lookback_days=3700))
