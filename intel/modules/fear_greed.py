"""fear_greed: a 0-100 fear & greed composite of six named components, each scored as the percentile of
its current reading within its own past five years (0 = most fearful, 100 = most greedy)."""
from __future__ import annotations

import numpy as np
import polars as pl

from intel import envelope, indicators, provenance
from intel.catalog import SECTORS
from intel.frames import Frames
from intel.modules._cross_asset import BOND_METHOD, align, bond_index
from intel.registry import Module, register

NAME = "fear_greed"
INPUTS = ("SP500", "VIXCLS", "BAMLH0A0HYM2", "DGS10", *SECTORS)
HISTORY, MIN_HISTORY = 1260, 252  # five years of each component's readings (at least one)
MIN_SECTORS = 5  # breadth needs this many sectors with a 50-day average on a day
# component -> (what it reads, unit of its raw reading, what a high reading means)
COMPONENTS = {
    "market_momentum": ("S&P 500 distance to its 125-day average", "pct", "greed"),
    "price_strength": ("S&P 500 distance to its 52-week (252-day) high", "pct", "greed"),
    "volatility": ("VIX distance to its 50-day average", "pct", "fear"),
    "junk_bond_demand": ("high-yield option-adjusted spread", "bp", "fear"),
    "market_breadth": ("share of the sector ETFs above their 50-day averages", "pct", "greed"),
    "safe_haven_demand": ("S&P 500 minus 10-year Treasury 20-day return", "pct", "greed"),
}
# the series each component's readings rest on
SERIES_OF = {"market_momentum": ("SP500",), "price_strength": ("SP500",), "volatility": ("VIXCLS",),
             "junk_bond_demand": ("BAMLH0A0HYM2",), "market_breadth": SECTORS,
             "safe_haven_demand": ("SP500", "DGS10")}


def _sma_gap(values: np.ndarray, n: int) -> np.ndarray:
    return (values / indicators.sma(values, n) - 1) * 100


def _readings(frames: Frames, breadth) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each component's daily readings (days, values) in its own units."""
    out = {}
    spx = frames.get("SP500")
    if spx is not None:
        days, close = indicators.day_numbers(spx), spx["value"].to_numpy()
        out["market_momentum"] = (days, _sma_gap(close, 125))
        high = np.full(len(close), np.nan)
        if len(close) >= 252:
            high[251:] = np.lib.stride_tricks.sliding_window_view(close, 252).max(axis=1)
        out["price_strength"] = (days, (close / high - 1) * 100)
        if frames.get("DGS10") is not None:
            bond_days, bond, _ = bond_index(frames.get("DGS10"))
            common, s, b = align((days, close), (bond_days, bond))
            rel = np.full(len(common), np.nan)
            if len(common) > 20:
                rel[20:] = (s[20:] / s[:-20] - b[20:] / b[:-20]) * 100
            out["safe_haven_demand"] = (common, rel)
    if (vix := frames.get("VIXCLS")) is not None:
        out["volatility"] = (indicators.day_numbers(vix), _sma_gap(vix["value"].to_numpy(), 50))
    if (hy := frames.get("BAMLH0A0HYM2")) is not None:
        out["junk_bond_demand"] = (indicators.day_numbers(hy), hy["value"].to_numpy() * 100)
    if breadth is not None:
        out["market_breadth"] = breadth[:2]
    return out


def _breadth(frames: Frames):
    """(days, share of sectors above their 50-day average, {sector: distance to it today})."""
    parts, distance = [], {}
    for sid in SECTORS:
        f = frames.get(sid)
        if f is None or f.height < 50:
            continue
        gap = _sma_gap(f["value"].to_numpy(), 50)
        ok = np.isfinite(gap)
        parts.append(pl.DataFrame({"date": f["date"].to_numpy()[ok], "above": (gap[ok] > 0).astype(np.float64)}))
        with provenance.about(frames, sid, operation=f"percent distance of {sid} from its 50-observation average"):
            distance[sid] = envelope.rnd(gap[-1], 2)
    if len(parts) < MIN_SECTORS:
        return None
    daily = (pl.concat(parts).group_by("date").agg(pl.col("above").mean() * 100, pl.len().alias("n"))
             .filter(pl.col("n") >= MIN_SECTORS).sort("date"))
    if daily.height == 0:
        return None
    return indicators.day_numbers(daily), daily["above"].to_numpy(), distance


def _score_at(values: np.ndarray, idx: int, greed_high: bool) -> float | None:
    """Percentile of values[idx] among the HISTORY readings up to it; inverted when high means fear."""
    window = values[max(0, idx - HISTORY + 1): idx + 1]
    if len(window) < MIN_HISTORY:
        return None
    sign = 1.0 if greed_high else -1.0  # inverted: the share of readings at or ABOVE today's
    return indicators.percentile_rank(sign * window, sign * values[idx])


def label_of(score: float) -> str:
    if score < 25:
        return "extreme fear"
    if score < 45:
        return "fear"
    if score <= 55:
        return "neutral"
    return "greed" if score <= 75 else "extreme greed"


def _component(frames: Frames, name: str, days, values, score: float) -> dict:
    """One component's figures (inside the scope of its series)."""
    what, unit, high_means = COMPONENTS[name]
    value = envelope.rnd(values[-1], 2, f"{what}, {'percent' if unit == 'pct' else unit}")
    hy = frames.get("BAMLH0A0HYM2")
    if name == "junk_bond_demand" and days[-1] == indicators.day_numbers(hy)[-1]:
        value = envelope.level(frames, "BAMLH0A0HYM2", 2, scale=100.0, op="latest high-yield OAS in bp (percent x 100)")
    return {"reads": what, f"value_{unit}": value,
            "score": envelope.rnd(score, 1, "percentile of the latest reading among up to 5 years of readings"
                                            + (" (inverted)" if high_means == "fear" else "")),
            "high_reading_means": high_means, "as_of": indicators.iso_day(days[-1]),
            "history_years_used": envelope.rnd(min(len(values), HISTORY) / 252, 1,
                                               "years of readings used, at most 5 (252 a year)")}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ("SP500", "VIXCLS", "BAMLH0A0HYM2"))
    sources = envelope.data_sources(frames, INPUTS)
    components, unavailable, past = {}, {}, {"1w": [], "1m": []}
    breadth = _breadth(frames)
    for name, (days, values) in _readings(frames, breadth).items():
        ok = np.isfinite(values)
        days, values = days[ok], values[ok]
        greed_high = COMPONENTS[name][2] == "greed"
        score = _score_at(values, len(values) - 1, greed_high) if len(values) else None
        if score is None:
            unavailable[name] = f"only {len(values)} readings (needs {MIN_HISTORY})"
            continue
        with provenance.about(frames, *SERIES_OF[name]):
            components[name] = _component(frames, name, days, values, score)
        for key, back in (("1w", 7), ("1m", 30)):
            idx = indicators.index_days_ago(days, back)
            then = _score_at(values, idx, greed_high) if idx is not None else None
            if then is not None:
                past[key].append(then)
    for name in COMPONENTS:
        if name not in components and name not in unavailable:
            unavailable[name] = "input missing or too short"
    if not components:
        raise envelope.InsufficientData(f"{NAME}: no component has {MIN_HISTORY} readings")
    score = float(np.mean([c["score"] for c in components.values()]))
    with provenance.about(frames, *INPUTS):  # which components compute depends on every input
        used = envelope.count(len(components), "count of components computed")
    with provenance.about(frames, *dict.fromkeys(sid for name in components for sid in SERIES_OF[name])):
        data = {"score": envelope.rnd(score, 1, "mean of the component scores"), "label": label_of(score),
                "components_used": used, "components": components}
        for key in ("1w", "1m"):
            # only comparable when every component that scores today also scored then
            data[f"score_{key}_ago"] = envelope.rnd(np.mean(past[key]), 1, "mean of the component scores "
                                                    f"{provenance.HORIZONS[key]} earlier") \
                if len(past[key]) == len(components) else None
        data["change_1m"] = envelope.rnd(score - data["score_1m_ago"], 1, "score minus the score a month earlier") \
            if data["score_1m_ago"] is not None else None
    if breadth is not None:
        data["sector_distance_to_sma50_pct"] = breadth[2]
        data["sectors_above_sma50"] = sorted(s for s, v in breadth[2].items() if v is not None and v > 0)
    ranked = sorted(components.items(), key=lambda kv: kv[1]["score"])
    signals = [_signal(data, sources)]
    summary = (f"The fear & greed composite reads {data['score']} ({data['label']}) from {len(components)} components"
               + (f", against {data['score_1w_ago']} a week ago and {data['score_1m_ago']} a month ago"
                  if data["score_1w_ago"] is not None and data["score_1m_ago"] is not None else "")
               + f". Most fearful: {ranked[0][0].replace('_', ' ')} ({ranked[0][1]['score']}); most greedy: "
               f"{ranked[-1][0].replace('_', ' ')} ({ranked[-1][1]['score']}).")
    if unavailable:
        summary += f" Not computed: {', '.join(n.replace('_', ' ') for n in unavailable)}."
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("risk_appetite", "risk-on/off from one-month cross-asset moves"),
                              ("vix", "the volatility component in detail"),
                              ("credit_spreads", "the junk bond component in detail"),
                              ("market_breadth", "the breadth component in detail"),
                              ("crash_risk", "whether fear comes with crash warnings")),
                          methodology=("Six components: S&P 500 distance to its 125-day average (momentum) and to its "
                                       "252-day high (price strength); VIX distance to its 50-day average (inverted); "
                                       "high-yield OAS level (junk bond demand, inverted); share of the sector ETFs "
                                       "above their 50-day averages (breadth, days with at least five sectors); S&P "
                                       "500 minus 10-year Treasury total return over 20 trading days (safe haven "
                                       "demand). Each is scored 0-100 as the percentile of today's reading among its "
                                       "own last five years of daily readings (at least one year), inverted where a "
                                       "high reading means fear; the composite is their equal-weighted mean. "
                                       + BOND_METHOD),
                          unavailable=unavailable or None)


def _signal(data: dict, sources: dict) -> dict:
    score, label = data["score"], data["label"]
    if score < 45:
        direction, urgency = "bearish", "high" if score < 25 else "medium"
    elif score > 55:
        direction, urgency = "bullish", "medium" if score > 75 else "low"
    else:
        direction, urgency = "neutral", "low"
    spread = float(np.std([c["score"] for c in data["components"].values()]))
    confidence = 0.35 + min(0.35, abs(score - 50) / 100) + max(0.0, 0.2 - spread / 200)
    confidence = envelope.degrade(confidence * min(1.0, data["components_used"] / 5), sources,
                                  essential=("SP500", "VIXCLS", "BAMLH0A0HYM2"))
    more = (" (greed stretched: watch for complacency)" if urgency == "medium" and direction == "bullish" else "")
    return envelope.signal("sentiment", direction, confidence, urgency,
                           f"fear & greed at {score}: {label} across {data['components_used']} components{more}")


register(Module(name=NAME, category="cross_asset", tier="S", inputs=INPUTS,
                description="0-100 fear & greed composite of six named components",
                compute=compute, lookback_days=2400))
