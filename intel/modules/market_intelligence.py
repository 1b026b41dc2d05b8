"""market_intelligence: the flagship overview: regime with rationale, per-asset-class signals, key
levels and moves, top risks and the composite score."""
from __future__ import annotations

from intel import envelope, provenance
from intel.frames import Frames
from intel.pulse import COMPOSITE_METHOD, PULSE_INPUTS, asset_signals, composite_score, credit_score
from intel.regime import METHODOLOGY as REGIME_METHOD
from intel.regime import fact_series, scoring_series, traced_classify
from intel.registry import Module, register

NAME = "market_intelligence"
INPUTS = tuple(dict.fromkeys([*PULSE_INPUTS, "DCOILWTICO"]))
LEVELS = {"SP500": ("sp500", "pct"), "NASDAQCOM": ("nasdaq", "pct"), "DGS10": ("yield_10y_pct", "bp"),
          "VIXCLS": ("vix", "diff"), "BAMLH0A0HYM2": ("hy_oas_pct", "bp"), "CBBTCUSD": ("btc_usd", "pct"),
          "DTWEXBGS": ("broad_dollar", "pct"), "DCOILWTICO": ("wti_usd", "pct")}
UNIT = {"pct": "pct", "bp": "bp", "diff": "pts"}


def key_levels(frames: Frames) -> tuple[dict, dict]:
    levels, moves = {}, {}
    for sid, (key, kind) in LEVELS.items():
        frame = frames.get(sid)
        if frame is None:
            continue
        levels[key] = envelope.level(frames, sid, 2)
        op = "percent change" if kind == "pct" else "change" + (" in bp" if kind == "bp" else "")
        moves[f"{key.removesuffix('_pct')}_change_1m_{UNIT[kind]}"] = envelope.change_obs(
            envelope.last_obs(frames, sid), envelope.obs_days_before(frames, sid, 30), kind, 2,
            f"{op} since 30 days earlier")
    return levels, moves


def asset_series(frames: Frames) -> dict[str, tuple[str, ...]]:
    """The series each asset class's score, confidence and figures rest on (as intel/pulse.py reads them)."""
    eq_id = "SP500" if frames.get("SP500") is not None else "NASDAQCOM"
    return {"equities": (eq_id,), "bonds": ("DGS10",), "crypto": ("CBBTCUSD",), "volatility": ("VIXCLS",),
            "fx": ("DTWEXBGS",) if frames.get("DTWEXBGS") is not None else ("DEXUSEU",)}


def top_risks(frames: Frames, facts: dict, signals: dict) -> list[dict]:
    """Conditions that are elevated now, with a 0-1 severity from how far past their threshold they are."""
    risks = []

    def add(name, severity, detail, series):
        with provenance.about(frames, *series, operation=f"severity of {name.replace('_', ' ')}, 0.05..1"):
            risks.append({"risk": name, "severity": envelope.rnd(min(1.0, max(0.05, severity)), 2), "detail": detail})

    vix, hy, hy_1m = facts.get("vix"), facts.get("hy_oas_pct"), facts.get("hy_oas_change_1m_bp")
    on = lambda key: fact_series(frames, key)  # noqa: E731
    if vix is not None and vix >= 25:
        add("volatility", (vix - 20) / 20, f"VIX at {vix}", on("vix"))
    if hy_1m is not None and hy_1m > 40:
        add("credit_widening", hy_1m / 150, f"high-yield spread up {hy_1m} bp in a month", on("hy_oas_change_1m_bp"))
    if hy is not None and hy >= 5:
        add("credit_level", (hy - 4) / 4, f"high-yield spread at {hy}%", on("hy_oas_pct"))
    if facts.get("curve_2s10s_bp") is not None and facts["curve_2s10s_bp"] < 0:
        add("curve_inversion", 0.3 + abs(facts["curve_2s10s_bp"]) / 200, f"2s10s at {facts['curve_2s10s_bp']} bp",
            on("curve_2s10s_bp"))
    dd = facts.get("sp500_drawdown_1y_pct")
    if dd is not None and dd <= -10:
        add("equity_drawdown", -dd / 30, f"S&P 500 {abs(dd)}% below its 1-year high", on("sp500_drawdown_1y_pct"))
    usd = facts.get("dollar_change_3m_pct")
    if usd is not None and usd > 4:
        add("dollar_surge", usd / 10, f"broad dollar up {usd}% in 3 months", on("dollar_change_3m_pct"))
    btc_dd = signals.get("crypto", {}).get("key_figures", {}).get("drawdown_1y_pct")
    if btc_dd is not None and btc_dd <= -30:
        add("crypto_drawdown", -btc_dd / 80, f"bitcoin {abs(btc_dd)}% below its 1-year high", ("CBBTCUSD",))
    ranked = sorted(risks, key=lambda r: -r["severity"])[:5]
    # a risk's place in the list (and whether it makes the top five) reads every risk's severity
    every = risk_series(frames)
    return [{**r,
             "severity": envelope.retag(frames, r["severity"], every, f"severity of the risk ranked {i + 1}, 0.05..1")}
            for i, r in enumerate(ranked)]


def risk_series(frames: Frames) -> list[str]:
    """Every series a top risk can rest on."""
    keys = ("vix", "hy_oas_pct", "curve_2s10s_bp", "sp500_drawdown_1y_pct", "dollar_change_3m_pct")
    return [s for s in dict.fromkeys([*(sid for k in keys for sid in fact_series(frames, k)), "CBBTCUSD"])
            if frames.get(s) is not None]


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ["SP500", "NASDAQCOM", "VIXCLS", "DGS10", "BAMLH0A0HYM2", "CBBTCUSD"])
    sources = envelope.data_sources(frames, INPUTS)
    regime = traced_classify(frames)
    assets = asset_signals(frames)
    # the composite reads the asset scores but the bonds', the credit score (the HY spread) and the regime's
    # probabilities
    scored = [s for name, ids in asset_series(frames).items() if name != "bonds" for s in ids]
    behind = [*dict.fromkeys([*scored, "BAMLH0A0HYM2", *scoring_series(frames, regime["facts"])])]
    with provenance.about(frames, *behind, operation="100 x weighted mean of risk-oriented scores (see methodology)"):
        score = composite_score(assets, regime["probabilities"], credit_score(frames))
    levels, moves = key_levels(frames)
    risks = top_risks(frames, regime["facts"], assets)
    with provenance.about(frames, *risk_series(frames)):
        risk_count = envelope.count(len(risks), "count of elevated risks (at most five)")
    state, probs = regime["state"], regime["probabilities"]
    data = {"regime": {k: regime[k] for k in ("state", "probabilities", "rationale")},
            "asset_classes": assets, "key_levels": levels, "moves_1m": moves, "top_risks": risks,
            "composite_score": score, "risk_count": risk_count}
    signals = [envelope.signal("regime", {"risk_on": "bullish", "neutral": "neutral"}.get(state, "bearish"),
                               envelope.degrade(probs[state], sources, ["SP500", "VIXCLS", "BAMLH0A0HYM2"]),
                               "critical" if state == "crisis" else "medium" if state == "risk_off" else "low",
                               f"regime {state} with probability {probs[state]}")]
    for name, s in assets.items():
        if not s.get("unavailable"):
            signals.append(envelope.signal(name, s["direction"], s["confidence"], "low",
                                           f"{s['direction_of']}: {s['cross_market']}"))
    parts = [f"The market regime reads {state.replace('_', ' ')} (probability {probs[state]}) and the "
             f"composite score is {score} (positive means risk-on)."]
    parts.append("By asset class: " + "; ".join(
        f"{n} {s['direction']}" for n, s in assets.items() if not s.get("unavailable")) + ".")
    parts.append(f"{len(risks)} elevated risks" + (": " + ", ".join(r["risk"].replace("_", " ") for r in risks)
                                                   if risks else "") + ".")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=" ".join(parts) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("market_regime", "regime probabilities, scores and every rule that fired"),
                              ("risk_dashboard", "each risk gauge as a percentile of history"),
                              ("yield_curve", "the curve behind the bond signal"),
                              ("credit_spreads", "credit behind the equity confirmation"),
                              ("correlation_breaks", "pairs whose correlation broke from baseline")),
                          methodology=f"{REGIME_METHOD} Composite: {COMPOSITE_METHOD}")


register(Module(name=NAME, category="overview", tier="S", inputs=INPUTS,
                description="Regime with rationale, per-asset-class signal, key levels and moves, top risks, "
                            "composite score -100..+100", compute=compute, lookback_days=800))
