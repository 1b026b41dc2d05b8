"""The cross-asset regime classifier shared by market_regime, market_intelligence and the pulse,
with each figure's provenance (`traced_classify`).

Transparent scored rules: each available fact (equity trend and drawdown, VIX level and percentile,
high-yield spread level and change, the 2s10s curve, the dollar) adds points to one of four states;
probabilities are the softmax of the state scores. Stale inputs count half.

Shocks: the trend facts describe the past months and can outvote a one-day shock for days (the 5 February 2018
VIX jump stayed risk_on for three sessions). Two fast facts read the shock itself (the VIX against its previous
20 closes, the high-yield spread's 1-week change); while either scores stress, the calm the slow facts score
(risk_on or neutral points of the trend, drawdown, spread level, curve and dollar) counts half. The thresholds are
round numbers fixed before the classifier was scored (intel/regime_score.py), not fitted to episodes."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators
from intel.envelope import rnd, series_status
from intel.frames import Frames

STATES = ("risk_on", "neutral", "risk_off", "crisis")
REGIME_INPUTS = ("SP500", "VIXCLS", "BAMLH0A0HYM2", "T10Y2Y", "DGS10", "DGS2", "DTWEXBGS")
METHODOLOGY = ("Scored rules: equity trend (distance to the 200-day average) and drawdown from the 1-year "
               "high, VIX level and 1-year percentile, high-yield OAS level and 1-month change, the 2s10s "
               "curve and the dollar's 3-month change each add points to risk_on, neutral, risk_off or "
               "crisis (stale inputs count half). Shock facts: the VIX at 20 or more and 50% (100%) above the "
               "average of its previous 20 closes adds risk_off (crisis) 1.5; the high-yield spread more than "
               "50 bp (100 bp) wider in a week adds risk_off (crisis) 1; while a shock fact scores, the risk_on "
               "and neutral points of the slow facts (trend, drawdown, spread level, curve, dollar) count half. "
               "Probabilities are the softmax of the state scores.")
STRESSED = ("risk_off", "crisis")
SHOCK_FACTS = ("vix_vs_20d_avg_pct", "hy_oas_change_1w_bp")
SLOW_FACTS = ("sp500_vs_sma200_pct", "sp500_drawdown_1y_pct", "hy_oas_pct", "curve_2s10s_bp", "dollar_change_3m_pct")
VIX_AVERAGE_CLOSES = 20


def regime_facts(frames: Frames) -> dict:
    """The numbers the rules read (None where an input is missing or too short)."""
    facts: dict = {}
    spx = frames.get("SP500")
    if spx is not None and spx.height >= 200:
        close = spx["value"].to_numpy()
        facts["sp500_vs_sma200_pct"] = (close[-1] / indicators.sma(close, 200)[-1] - 1) * 100
        year = indicators.window(spx, 365)["value"].to_numpy()
        facts["sp500_drawdown_1y_pct"] = (year[-1] / year.max() - 1) * 100
    vix = frames.get("VIXCLS")
    if vix is not None:
        facts["vix"] = float(vix["value"][-1])
        facts["vix_percentile_1y"] = indicators.percentile_rank(indicators.window(vix, 365)["value"], facts["vix"])
        if vix.height > VIX_AVERAGE_CLOSES:
            average = float(vix["value"][-VIX_AVERAGE_CLOSES - 1:-1].mean())
            facts["vix_vs_20d_avg_pct"] = (facts["vix"] / average - 1) * 100
    hy = frames.get("BAMLH0A0HYM2")
    if hy is not None:
        facts["hy_oas_pct"] = float(hy["value"][-1])
        facts["hy_oas_change_1m_bp"] = indicators.change_since(hy, 30, "bp")
        facts["hy_oas_change_1w_bp"] = indicators.change_since(hy, 7, "bp")
    curve = curve_2s10s_bp(frames)
    if curve is not None:
        facts["curve_2s10s_bp"] = curve
    # context for the rationale reader (no rule scores them): a bond rally with a weak curve reads differently
    for series_id, key in (("DGS10", "yield_10y_change_1m_bp"), ("DGS2", "yield_2y_change_1m_bp")):
        frame = frames.get(series_id)
        if frame is not None:
            facts[key] = indicators.change_since(frame, 30, "bp")
    usd = frames.get("DTWEXBGS")
    if usd is not None:
        facts["dollar_change_3m_pct"] = indicators.change_since(usd, 91, "pct")
    return facts


def curve_2s10s_bp(frames: Frames) -> float | None:
    spread = frames.get("T10Y2Y")
    if spread is not None:
        return float(spread["value"][-1]) * 100
    ten, two = frames.get("DGS10"), frames.get("DGS2")
    if ten is None or two is None:
        return None
    return (float(ten["value"][-1]) - float(two["value"][-1])) * 100


# (fact, series, [(predicate, state, points, text)]): first matching band wins within a rule.
def _rules(f: dict) -> list[tuple[str, str, list]]:
    return [
        ("sp500_vs_sma200_pct", "SP500", [
            (lambda d: d < -15, "crisis", 1.0, "S&P 500 {v}% below its 200-day average"),
            (lambda d: d < -2, "risk_off", 1.0, "S&P 500 {v}% below its 200-day average"),
            (lambda d: d <= 2, "neutral", 0.5, "S&P 500 within 2% of its 200-day average ({v}%)"),
            (lambda d: True, "risk_on", 1.0, "S&P 500 {v}% above its 200-day average")]),
        ("sp500_drawdown_1y_pct", "SP500", [
            (lambda d: d <= -20, "crisis", 1.0, "S&P 500 in a {v}% drawdown from its 1-year high"),
            (lambda d: d <= -10, "risk_off", 1.0, "S&P 500 in a {v}% drawdown from its 1-year high"),
            (lambda d: d <= -5, "neutral", 0.5, "S&P 500 {v}% off its 1-year high"),
            (lambda d: True, "risk_on", 0.5, "S&P 500 within 5% of its 1-year high ({v}%)")]),
        ("vix", "VIXCLS", [
            (lambda v: v >= 40, "crisis", 2.0, "VIX at {v}, a crisis level (40 or more)"),
            (lambda v: v >= 30, "risk_off", 1.5, "VIX at {v}, stressed (30 to 40)"),
            (lambda v: v >= 20, "risk_off", 1.0, "VIX at {v}, elevated (20 to 30)"),
            (lambda v: v >= 15, "neutral", 1.0, "VIX at {v}, normal (15 to 20)"),
            (lambda v: True, "risk_on", 1.0, "VIX at {v}, calm (below 15)")]),
        ("vix_percentile_1y", "VIXCLS", [
            (lambda p: p >= 90, "risk_off", 0.5, "VIX in the top decile of its year (percentile {v})"),
            (lambda p: p <= 20, "risk_on", 0.5, "VIX in the bottom fifth of its year (percentile {v})")]),
        # a jump to a VIX still below 20 is not stress by the level bands' own reading
        ("vix_vs_20d_avg_pct", "VIXCLS", [
            (lambda j: j >= 100 and f.get("vix", 0) >= 20, "crisis", 1.5,
             "VIX {v}% above the average of its previous 20 closes (a shock)"),
            (lambda j: j >= 50 and f.get("vix", 0) >= 20, "risk_off", 1.5,
             "VIX {v}% above the average of its previous 20 closes (a shock)")]),
        ("hy_oas_pct", "BAMLH0A0HYM2", [
            (lambda h: h >= 7, "crisis", 1.5, "high-yield spread at {v}%, distressed (7% or more)"),
            (lambda h: h >= 5, "risk_off", 1.0, "high-yield spread at {v}%, wide (5% to 7%)"),
            (lambda h: h >= 3.5, "neutral", 1.0, "high-yield spread at {v}%, middling (3.5% to 5%)"),
            (lambda h: True, "risk_on", 1.0, "high-yield spread at {v}%, tight (below 3.5%)")]),
        ("hy_oas_change_1m_bp", "BAMLH0A0HYM2", [
            (lambda c: c > 100, "crisis", 1.0, "high-yield spread up {v} bp in a month"),
            (lambda c: c > 40, "risk_off", 0.5, "high-yield spread up {v} bp in a month"),
            (lambda c: c < -25, "risk_on", 0.5, "high-yield spread down {v} bp in a month")]),
        ("hy_oas_change_1w_bp", "BAMLH0A0HYM2", [
            (lambda c: c > 100, "crisis", 1.0, "high-yield spread up {v} bp in a week (a shock)"),
            (lambda c: c > 50, "risk_off", 1.0, "high-yield spread up {v} bp in a week (a shock)")]),
        ("curve_2s10s_bp", "T10Y2Y", [
            (lambda s: rnd(s, 2) == 0, "neutral", 0.25, "2s10s curve flat (0 bp)"),
            (lambda s: s < 0, "risk_off", 0.5, "2s10s curve inverted at {v} bp"),
            (lambda s: True, "neutral", 0.25, "2s10s curve positive at {v} bp")]),
        ("dollar_change_3m_pct", "DTWEXBGS", [
            (lambda u: u > 5, "risk_off", 0.5, "broad dollar up {v}% in 3 months (tightening)"),
            (lambda u: u < -3, "risk_on", 0.5, "broad dollar down {v}% in 3 months (easing)"),
            (lambda u: True, "neutral", 0.25, "broad dollar steady ({v}% in 3 months)")]),
    ]


def classify(frames: Frames, facts: dict | None = None) -> dict:
    facts = regime_facts(frames) if facts is None else facts
    scores = dict.fromkeys(STATES, 0.0)
    rationale: list[tuple[float, str, dict]] = []
    statuses: dict[str, dict | None] = {}  # several rules read one series: its status once

    def status_of(series_id: str) -> dict | None:
        if series_id not in statuses:
            statuses[series_id] = series_status(frames, series_id)
        return statuses[series_id]

    fired = []  # (fact, series, value, state, points, text) of the first band that holds, per rule
    for key, series_id, bands in _rules(facts):
        value = facts.get(key)
        band = next((b for b in bands if b[0](value)), None) if value is not None else None
        if band is not None:
            fired.append((key, series_id, value, *band[1:]))
    shock = any(key in SHOCK_FACTS and state in STRESSED for key, _, _, state, _, _ in fired)
    for key, series_id, value, state, points, text in fired:
        # the curve may come from DGS10 - DGS2 when T10Y2Y itself is absent
        status = status_of(series_id) or status_of("DGS10")
        stale = bool(status and status["stale"])
        calm_in_shock = shock and key in SLOW_FACTS and state not in STRESSED
        points *= (0.5 if stale else 1.0) * (0.5 if calm_in_shock else 1.0)
        scores[state] += points
        magnitude = any(w in text for w in ("up {v}", "down {v}", "drawdown", "below its", "off its"))
        shown = rnd(abs(value) if magnitude else value, 2)
        note = (" (stale input, half weight)" if stale else "") + \
            (" (calm trend input, half weight in a shock)" if calm_in_shock else "")
        rationale.append((points, f"{text.format(v=shown)} -> {state}{note}",
                          {"fact": key, "value": rnd(value, 2), "state": state, "points": points}))
    probabilities = softmax(scores)
    # ties (e.g. no facts at all) resolve to neutral rather than to whichever state is listed first
    state = max(STATES, key=lambda s: (round(probabilities[s], 9), s == "neutral"))
    return {"state": state, "probabilities": {s: rnd(p, 3) for s, p in probabilities.items()},
            "scores": {s: rnd(v, 2) for s, v in scores.items()},
            "rationale": [text for _, text, _ in sorted(rationale, key=lambda r: -r[0])],
            "drivers": [driver for _, _, driver in sorted(rationale, key=lambda r: -r[0])],
            "facts": {k: rnd(v, 2) for k, v in facts.items()},
            "missing_facts": [k for k, _, _ in _rules({}) if facts.get(k) is None]}


def softmax(scores: dict[str, float]) -> dict[str, float]:
    values = np.array(list(scores.values()), dtype=float)
    weights = np.exp(values - values.max())
    weights /= weights.sum()
    return {k: float(w) for k, w in zip(scores, weights)}


def risk_balance(probabilities: dict[str, float]) -> float:
    """-1..+1: P(risk_on) minus P(risk_off) minus P(crisis), used by the composite score."""
    return max(-1.0, min(1.0, probabilities["risk_on"] - probabilities["risk_off"] - probabilities["crisis"]))


# ---- provenance: each figure of the regime filed under the series it rests on ----

CONTEXT_FACTS = ("yield_10y_change_1m_bp", "yield_2y_change_1m_bp")  # shown to readers; no rule scores them
FACT_SERIES = {"sp500_vs_sma200_pct": ("SP500",), "sp500_drawdown_1y_pct": ("SP500",), "vix": ("VIXCLS",),
               "vix_percentile_1y": ("VIXCLS",), "hy_oas_pct": ("BAMLH0A0HYM2",),
               "hy_oas_change_1m_bp": ("BAMLH0A0HYM2",), "hy_oas_change_1w_bp": ("BAMLH0A0HYM2",),
               "vix_vs_20d_avg_pct": ("VIXCLS",), "yield_10y_change_1m_bp": ("DGS10",),
               "yield_2y_change_1m_bp": ("DGS2",), "dollar_change_3m_pct": ("DTWEXBGS",)}


def fact_series(frames: Frames, key: str) -> tuple[str, ...]:
    if key == "curve_2s10s_bp":  # T10Y2Y itself, or DGS10 - DGS2 when it is absent (regime.curve_2s10s_bp)
        return ("T10Y2Y",) if frames.get("T10Y2Y") is not None else ("DGS10", "DGS2")
    return FACT_SERIES[key]


def scoring_series(frames: Frames, facts: dict) -> list[str]:
    """The series behind the facts the rules score: every state score and probability rests on them."""
    out: dict[str, None] = {}
    for key in facts:
        if key not in CONTEXT_FACTS:
            out.update(dict.fromkeys(fact_series(frames, key)))
    return list(out)


def _exact_fact(frames: Frames, key: str):
    """The fact as named observations, where it is a level, a change or a drawdown of them."""
    last = lambda sid: envelope.last_obs(frames, sid)  # noqa: E731
    if key in ("vix", "hy_oas_pct"):
        return envelope.level(frames, fact_series(frames, key)[0], 2)
    if key == "curve_2s10s_bp":
        if frames.get("T10Y2Y") is not None:
            return envelope.level(frames, "T10Y2Y", 2, scale=100.0, op="T10Y2Y in bp")
        return envelope.difference(last("DGS10"), last("DGS2"), 2)
    changes = {"hy_oas_change_1m_bp": ("bp", 30, "change since 30 days earlier, in bp"),
               "hy_oas_change_1w_bp": ("bp", 7, "change since 7 days earlier, in bp"),
               "yield_10y_change_1m_bp": ("bp", 30, "change since 30 days earlier, in bp"),
               "yield_2y_change_1m_bp": ("bp", 30, "change since 30 days earlier, in bp"),
               "dollar_change_3m_pct": ("pct", 91, "percent change since 91 days earlier")}
    if key in changes:
        kind, days, op = changes[key]
        sid = fact_series(frames, key)[0]
        return envelope.change_obs(last(sid), envelope.obs_days_before(frames, sid, days), kind, 2, op)
    if key == "sp500_drawdown_1y_pct":
        year = indicators.window(frames.get("SP500"), 365)
        top = int(np.argmax(year["value"].to_numpy()))
        return envelope.pct_change(last("SP500"), ("SP500", year["date"][top], float(year["value"][top])), 2,
                                   "percent below the highest close of the past year")
    return None


FACT_OPS = {"sp500_vs_sma200_pct": "percent distance from the 200-observation average",
            "vix_percentile_1y": "percentile rank within the past year",
            "vix_vs_20d_avg_pct": "percent above the average of the previous 20 closes"}


def traced_fact(frames: Frames, key: str, value):
    return envelope.exact_or(_exact_fact(frames, key), value, envelope.retag(frames, value, fact_series(frames, key),
                                                                      FACT_OPS.get(key)))


def traced_classify(frames: Frames) -> dict:
    """`classify` with each fact filed under its own series (named observations where exact), and the
    state scores, probabilities and ranked drivers under every scored series."""
    facts = regime_facts(frames)
    result = classify(frames, facts)
    scored = scoring_series(frames, facts)
    return {**result,
            "probabilities": {s: envelope.retag(frames, p, scored, "softmax of the state scores")
                              for s, p in result["probabilities"].items()},
            "scores": {s: envelope.retag(frames, v, scored, "sum of the points of the rules that fired for the state")
                       for s, v in result["scores"].items()},
            "facts": {k: traced_fact(frames, k, v) for k, v in result["facts"].items()},
            # a driver's place in the list is its rank by points, which reads every scored fact: its figures
            # rest on all of them (facts.<fact> names the fact's own observations)
            "drivers": [{**d,
                         "value": envelope.retag(frames, d["value"], scored, f"value of the fact ranked {i + 1} by "
                                                                             f"rule points (see facts.{d['fact']})"),
                         "points": envelope.retag(frames, d["points"], scored,
                                                  f"points of the fact ranked {i + 1} (half when stale)")}
                        for i, d in enumerate(result["drivers"])]}
