"""market_regime (proprietary): the cross-asset regime the pulse shows, with probabilities and rationale."""
from __future__ import annotations

from intel import envelope, provenance
from intel.frames import Frames
from intel.regime import METHODOLOGY, REGIME_INPUTS, scoring_series, traced_classify
from intel.registry import Module, register

NAME = "market_regime"
DIRECTION = {"risk_on": "bullish", "neutral": "neutral", "risk_off": "bearish", "crisis": "bearish"}
URGENCY = {"risk_on": "low", "neutral": "low", "risk_off": "medium", "crisis": "critical"}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ["SP500", "VIXCLS", "BAMLH0A0HYM2"])
    sources = envelope.data_sources(frames, REGIME_INPUTS)
    result = traced_classify(frames)
    state, probs = result["state"], result["probabilities"]
    ranked = sorted(probs, key=probs.get, reverse=True)
    runner_up = ranked[1]
    # which facts fired and the margin read every scored fact
    with provenance.about(frames, *scoring_series(frames, result["facts"])):
        margin = envelope.rnd(probs[state] - probs[runner_up], 3, "probability of the state minus the runner-up's")
        facts_used = envelope.count(len(result["rationale"]), "count of rules that fired")
    data = {"state": state, "probabilities": probs, "scores": result["scores"],
            "margin_over_runner_up": margin, "runner_up": runner_up,
            "rationale": result["rationale"], "drivers": result["drivers"], "facts_used": facts_used,
            "facts": result["facts"], "missing_facts": result["missing_facts"]}
    confidence = envelope.degrade(probs[state], sources, essential=["SP500", "VIXCLS", "BAMLH0A0HYM2"])
    signals = [envelope.signal("regime", DIRECTION[state], confidence, URGENCY[state],
                               f"{state} with probability {probs[state]}; runner-up {runner_up} at {probs[runner_up]}")]
    summary = (f"The cross-asset regime is {state.replace('_', ' ')} with probability {probs[state]}, ahead of "
               f"{runner_up.replace('_', ' ')} at {probs[runner_up]}. "
               f"It rests on {len(result['rationale'])} facts; the weightiest is {_driver(result['drivers'][0])}."
               if result["rationale"] else f"The regime is {state} but no facts were available.")
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("regime_transition", "odds that this regime changes"),
                              ("risk_dashboard", "each risk gauge as a percentile"),
                              ("market_intelligence", "the regime with per-asset signals and risks")),
                          methodology=METHODOLOGY)


def _driver(driver: dict) -> str:
    return (f"{driver['fact'].replace('_', ' ')} at {driver['value']}, "
            f"pointing to {driver['state'].replace('_', ' ')}")


register(Module(name=NAME, category="regime", tier="P", inputs=REGIME_INPUTS,
                description="Regime state with probabilities and rationale", compute=compute, lookback_days=800))
