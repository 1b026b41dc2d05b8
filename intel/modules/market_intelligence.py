"""market_intelligence: the flagship overview: regime with rationale, per-asset-class signals, key
levels and moves, top risks and the composite score."""
from __future__ import annotations

from intel import envelope as env
from intel import indicators as ind
from intel.frames import Frames
from intel.pulse import COMPOSITE_METHOD, PULSE_INPUTS, asset_signals, composite_score, credit_score
from intel.regime import METHODOLOGY as REGIME_METHOD
from intel.regime import classify
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
        levels[key] = env.rnd(frame["value"][-1], 2)
        moves[f"{key.removesuffix('_pct')}_change_1m_{UNIT[kind]}"] = env.rnd(ind.change_since(frame, 30, kind), 2)
    return levels, moves


def top_risks(facts: dict, signals: dict) -> list[dict]:
    """Conditions that are elevated now, with a 0-1 severity from how far past their threshold they are."""
    risks = []

    def add(name, severity, detail):
        risks.append({"risk": name, "severity": env.rnd(min(1.0, max(0.05, severity)), 2), "detail": detail})

    vix, hy, hy_1m = facts.get("vix"), facts.get("hy_oas_pct"), facts.get("hy_oas_change_1m_bp")
    if vix is not None and vix >= 25:
        add("volatility", (vix - 20) / 20, f"VIX at {vix}")
    if hy_1m is not None and hy_1m > 40:
        add("credit_widening", hy_1m / 150, f"high-yield spread up {hy_1m} bp in a month")
    if hy is not None and hy >= 5:
        add("credit_level", (hy - 4) / 4, f"high-yield spread at {hy}%")
    if facts.get("curve_2s10s_bp") is not None and facts["curve_2s10s_bp"] < 0:
        add("curve_inversion", 0.3 + abs(facts["curve_2s10s_bp"]) / 200, f"2s10s at {facts['curve_2s10s_bp']} bp")
    dd = facts.get("sp500_drawdown_1y_pct")
    if dd is not None and dd <= -10:
        add("equity_drawdown", -dd / 30, f"S&P 500 {abs(dd)}% below its 1-year high")
    usd = facts.get("dollar_change_3m_pct")
    if usd is not None and usd > 4:
        add("dollar_surge", usd / 10, f"broad dollar up {usd}% in 3 months")
    btc_dd = signals.get("crypto", {}).get("key_figures", {}).get("drawdown_1y_pct")
    if btc_dd is not None and btc_dd <= -30:
        add("crypto_drawdown", -btc_dd / 80, f"bitcoin {abs(btc_dd)}% below its 1-year high")
    return sorted(risks, key=lambda r: -r["severity"])[:5]


def compute(frames: Frames) -> dict:
    env.require(frames, NAME, ["SP500", "NASDAQCOM", "VIXCLS", "DGS10", "BAMLH0A0HYM2", "CBBTCUSD"])
    sources = env.data_sources(frames, INPUTS)
    regime = classify(frames)
    assets = asset_signals(frames)
    score = composite_score(assets, regime["probabilities"], credit_score(frames))
    levels, moves = key_levels(frames)
    risks = top_risks(regime["facts"], assets)
    state, probs = regime["state"], regime["probabilities"]
    data = {"regime": {k: regime[k] for k in ("state", "probabilities", "rationale")},
            "asset_classes": assets, "key_levels": levels, "moves_1m": moves, "top_risks": risks,
            "composite_score": score, "risk_count": len(risks)}
    signals = [env.signal("regime", {"risk_on": "bullish", "neutral": "neutral"}.get(state, "bearish"),
                          env.degrade(probs[state], sources, ["SP500", "VIXCLS", "BAMLH0A0HYM2"]),
                          "critical" if state == "crisis" else "medium" if state == "risk_off" else "low",
                          f"regime {state} with probability {probs[state]}")]
    for name, s in assets.items():
        if not s.get("unavailable"):
            signals.append(env.signal(name, s["direction"], s["confidence"], "low",
                                      f"{s['direction_of']}: {s['cross_market']}"))
    parts = [f"The market regime reads {state.replace('_', ' ')} (probability {probs[state]}) and the "
             f"composite score is {score} (positive means risk-on)."]
    parts.append("By asset class: " + "; ".join(
        f"{n} {s['direction']}" for n, s in assets.items() if not s.get("unavailable")) + ".")
    parts.append(f"{len(risks)} elevated risks" + (": " + ", ".join(r["risk"].replace("_", " ") for r in risks)
                                                   if risks else "") + ".")
    return env.build(NAME, frames, data=data, signals=signals,
                     summary=" ".join(parts) + env.staleness_note(sources), sources=sources,
                     related_modules=env.related(
                         ("market_regime", "regime probabilities, scores and every rule that fired"),
                         ("risk_dashboard", "each risk gauge as a percentile of history"),
                         ("yield_curve", "the curve behind the bond signal"),
                         ("credit_spreads", "credit behind the equity confirmation"),
                         ("correlation_breaks", "pairs whose correlation broke from baseline")),
                     methodology=f"{REGIME_METHOD} Composite: {COMPOSITE_METHOD}")


register(Module(name=NAME, category="overview", tier="S", inputs=INPUTS,
                description="Regime with rationale, per-asset-class signal, key levels and moves, top risks, "
                            "composite score -100..+100", compute=compute, lookback_days=800))
