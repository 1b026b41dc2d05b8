"""risk_appetite: a risk-on/off score (-100..+100) from one-month moves in equities, credit, volatility and
two havens (Treasuries against stocks, the yen), each scaled by its own typical move."""
from __future__ import annotations

import numpy as np
import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import not_computed
from intel.modules._cross_asset import BOND_METHOD, align, bond_index
from intel.registry import Module, register

NAME = "risk_appetite"
INPUTS = ("SP500", "BAMLH0A0HYM2", "VIXCLS", "DGS10", "DEXJPUS")
H = 21  # trading days in the one-month move
HISTORY, MIN_HISTORY = 756, 126  # three years of one-month moves scale each component (at least half a year)
# component -> (label, unit of its raw move, what a positive reading means)
COMPONENTS = {
    "equities": ("S&P 500 one-month return", "pct", "stocks rising"),
    "credit": ("high-yield spread one-month change, sign flipped", "bp", "spreads tightening"),
    "volatility": ("VIX one-month log change, sign flipped", "pct", "implied volatility falling"),
    "bond_haven": ("S&P 500 minus 10-year Treasury one-month return", "pct", "stocks beating Treasuries"),
    "yen_haven": ("dollar-yen one-month change", "pct", "the yen weakening"),
}
# the series each component's moves rest on
SERIES_OF = {"equities": ("SP500",), "credit": ("BAMLH0A0HYM2",), "volatility": ("VIXCLS",),
             "bond_haven": ("SP500", "DGS10"), "yen_haven": ("DEXJPUS",)}


def _moves(frames: Frames) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each component's one-month moves (days, values), signed so that positive means risk-on."""
    out = {}

    def level(sid):
        f = frames.get(sid)
        return None if f is None else (indicators.day_numbers(f), f["value"].to_numpy().astype(np.float64))

    def move(days, values, fn):
        if len(values) <= H:
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            return days[H:], fn(values[H:], values[:-H])

    log_move = lambda now, then: np.log(now / then) * 100  # noqa: E731
    if (spx := level("SP500")) is not None:
        out["equities"] = move(*spx, log_move)
    if (hy := level("BAMLH0A0HYM2")) is not None:
        out["credit"] = move(*hy, lambda now, then: -(now - then) * 100)
    if (vix := level("VIXCLS")) is not None:
        out["volatility"] = move(*vix, lambda now, then: -log_move(now, then))
    if spx is not None and frames.get("DGS10") is not None:
        bond_days, bond, _ = bond_index(frames.get("DGS10"))
        days, s, b = align(spx, (bond_days, bond))
        out["bond_haven"] = move(days, np.log(s / b) * 100, lambda now, then: now - then)
    if (jpy := level("DEXJPUS")) is not None:
        out["yen_haven"] = move(*jpy, log_move)
    return {k: v for k, v in out.items() if v is not None}


def _component(frames: Frames, name: str, days, x, scale: float, z, scores) -> dict:
    """One component's figures (inside the scope of its series)."""
    label, unit, meaning = COMPONENTS[name]
    move = envelope.rnd(x[-1], 2, f"{label} over {H} observations, {unit}")
    if name == "credit" and days[-1] == indicators.day_numbers(frames.get("BAMLH0A0HYM2"))[-1]:
        # a plain difference of two named spreads: latest minus 21 observations earlier, sign flipped, in bp
        move = envelope.difference(envelope.last_obs(frames, "BAMLH0A0HYM2"),
                                   envelope.nth_obs(frames, "BAMLH0A0HYM2", -H - 1), 2,
                                   scale=-100.0, op=f"{label}: minus the change over {H} observations, in bp")
    return {"measures": label, f"move_1m_{unit}": move,
            f"typical_move_1m_{unit}": envelope.rnd(scale, 2, f"root-mean-square over up to 3 years of the {label}"),
            "zscore": envelope.rnd(z[-1], 2, "latest one-month move over its typical move"),
            "score": envelope.rnd(scores[-1], 1, "100 x (2 Phi(z) - 1) of the component's z-score"),
            "as_of": indicators.iso_day(days[-1]), "positive_means": meaning}


def _score(z):
    """Map a z-score to -100..+100 through the normal CDF (z of 1 is about 68)."""
    return 100.0 * (2.0 * indicators.normal_cdf(z) - 1.0)


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ("SP500", "BAMLH0A0HYM2", "VIXCLS"))
    sources = envelope.data_sources(frames, INPUTS)
    components, history, unavailable = {}, [], {}
    for name, (days, x) in _moves(frames).items():
        ok = np.isfinite(x)
        days, x = days[ok][-HISTORY:], x[ok][-HISTORY:]
        if len(x) < MIN_HISTORY:
            unavailable[name] = f"only {len(x)} one-month moves (needs {MIN_HISTORY})"
            continue
        scale = float(np.sqrt(np.mean(x ** 2)))  # typical size of a one-month move, not demeaned
        if scale == 0:
            unavailable[name] = "no variation"
            continue
        z = x / scale
        scores = _score(z)
        with provenance.about(frames, *SERIES_OF[name]):
            components[name] = _component(frames, name, days, x, scale, z, scores)
        history.append(pl.DataFrame({"date": days, name: scores}))
    for name in COMPONENTS:
        if name not in components and name not in unavailable:
            unavailable[name] = "input missing"
    if not components:
        raise envelope.InsufficientData(f"{NAME}: no component has {MIN_HISTORY} one-month moves")
    score = float(np.mean([c["score"] for c in components.values()]))
    joined = history[0]
    for part in history[1:]:
        joined = joined.join(part, on="date", how="inner")
    composite = joined.select(pl.mean_horizontal(pl.exclude("date"))).to_series().to_numpy()
    comp_days = joined["date"].to_numpy()
    agree = [c for c in components.values() if np.sign(c["score"]) == np.sign(score)]
    with provenance.about(frames, *INPUTS):  # which components compute depends on every input
        used = envelope.count(len(components), "count of components computed")
    with provenance.about(frames, *dict.fromkeys(sid for name in components for sid in SERIES_OF[name])):
        data = {"score": envelope.rnd(score, 1, "mean of the component scores"), "regime": _regime(score),
                "components_used": used,
                "agreement_pct": envelope.rnd(len(agree) / len(components) * 100, 1,
                                              "percent of components whose score has the composite's sign"),
                "components": components}
        for key, back in (("score_1w_ago", 7), ("score_1m_ago", 30)):
            idx = indicators.index_days_ago(comp_days, back) if len(comp_days) else None
            data[key] = envelope.rnd(composite[idx], 1, f"composite score on the last common date {back} or more "
                                                        "calendar days ago") if idx is not None else None
        data["change_1m"] = envelope.rnd(score - data["score_1m_ago"], 1, "score minus the score a month ago") \
            if data["score_1m_ago"] is not None else None
        data["percentile_3y"] = envelope.rnd(indicators.percentile_rank(composite, score), 1,
                                             "percentile rank of the score "
                                             "among the composite's values over up to 3 years") \
            if len(composite) >= MIN_HISTORY else None
    data["window_days"] = envelope.constant(H, "fixed parameter: one-month move in trading days")
    signals = [_signal(data, sources)]
    ranked = sorted(components.items(), key=lambda kv: kv[1]["score"])
    summary = (f"Risk appetite scores {data['score']} ({data['regime']}; the scale runs from full risk-off to full "
               "risk-on, zero neutral), from "
               f"{len(components)} components of which {data['agreement_pct']}% point the same way")
    summary += (f"; a month ago it was {data['score_1m_ago']}." if data["score_1m_ago"] is not None else ".")
    summary += (f" Most risk-off: {ranked[0][0].replace('_', ' ')} ({ranked[0][1]['score']}); most risk-on: "
                f"{ranked[-1][0].replace('_', ' ')} ({ranked[-1][1]['score']}).")
    if data["percentile_3y"] is not None:
        summary += f" The score sits at the {data['percentile_3y']} percentile of its past three years."
    summary += not_computed(unavailable)
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("fear_greed", "a level-based sentiment gauge"),
                              ("market_regime", "the cross-asset regime"),
                              ("credit_spreads", "the credit component in detail"),
                              ("vix", "the volatility component in detail"),
                              ("safe_havens", "haven behaviour on risk-off days"),
                              ("intermarket_divergences", "components that disagree with equities")),
                          methodology=(f"Each component is a {H}-trading-day move signed so that positive means "
                                       "risk-on (S&P 500 log return; high-yield OAS change in bp and VIX log change, "
                                       "both sign flipped; S&P 500 minus 10-year Treasury total return; dollar-yen log "
                                       "change). It is divided by the root-mean-square of its own one-month moves over "
                                       "the past three years (z, not demeaned: a move is scored by its direction and "
                                       "size) and mapped to -100..+100 as 100 x (2 Phi(z) - 1); the score is the "
                                       "equal-weighted mean of the available components. " + BOND_METHOD),
                          unavailable=unavailable or None)


def _regime(score: float) -> str:
    if score >= 50:
        return "strong risk-on"
    if score >= 20:
        return "risk-on"
    if score > -20:
        return "neutral"
    return "risk-off" if score > -50 else "strong risk-off"


def _signal(data: dict, sources: dict) -> dict:
    score = data["score"]
    if score <= -20:
        direction, urgency = "bearish", "critical" if score <= -75 else "high" if score <= -50 else "medium"
    elif score >= 20:
        direction, urgency = "bullish", "low"
    else:
        direction, urgency = "neutral", "low"
    confidence = 0.3 + min(0.35, abs(score) / 200) + 0.3 * (data["agreement_pct"] / 100)
    confidence = envelope.degrade(confidence, sources, essential=("SP500", "BAMLH0A0HYM2", "VIXCLS"))
    return envelope.signal("risk_appetite", direction, confidence, urgency,
                           f"risk appetite {score} ({data['regime']}), {data['agreement_pct']}% of components agree")


register(Module(name=NAME, category="cross_asset", tier="S", inputs=INPUTS,
                description="Risk-on/off score from equities, credit, havens and volatility",
                compute=compute, lookback_days=1300))
