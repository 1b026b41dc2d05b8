"""fx_overview: levels and changes of the major dollar pairs and the broad dollar."""
from __future__ import annotations

from datetime import timedelta

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import HORIZONS, observed_horizon_returns, pct_word
from intel.registry import Module, register

NAME = "fx_overview"
# pair name, and whether the FRED quote is dollars per foreign unit (then a rise is a weaker dollar)
PAIRS = {"DEXUSEU": ("EURUSD", True), "DEXJPUS": ("USDJPY", False), "DEXUSUK": ("GBPUSD", True),
         "DEXCAUS": ("USDCAD", False), "DEXSZUS": ("USDCHF", False), "DEXCHUS": ("USDCNY", False),
         "DEXMXUS": ("USDMXN", False)}
BROAD = "DTWEXBGS"
INPUTS = (*PAIRS, BROAD)


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    stale = set(envelope.stale_ids(sources))
    pairs, usd_moves = {}, {}
    for sid, (pair, usd_is_quote) in PAIRS.items():
        frame = frames.get(sid)
        if frame is None:
            continue
        row = {"level": envelope.level(frames, sid, 4), "date": frame["date"][-1].isoformat(), "stale": sid in stale}
        row.update(observed_horizon_returns(frames, sid, ("1d", "1w", "1m", "3m", "1y"), ytd=False))
        row["usd_change_1m_pct"] = usd_change_1m(frames, sid, pair, usd_is_quote)
        pairs[pair] = row
        if row["usd_change_1m_pct"] is not None and sid not in stale:
            usd_moves[pair] = row["usd_change_1m_pct"]
    data: dict = {"pairs": pairs}
    broad = frames.get(BROAD)
    if broad is not None:
        data["broad_dollar"] = {"level": envelope.level(frames, BROAD, 2), "date": broad["date"][-1].isoformat(),
                                "stale": BROAD in stale,
                                **observed_horizon_returns(frames, BROAD, ("1d", "1w", "1m", "3m", "1y"))}
    with provenance.about(frames, *(sid for sid, (pair, _) in PAIRS.items() if pair in usd_moves)):
        data["usd_vs_fresh_pairs_avg_change_1m_pct"] = envelope.rnd(
            np.mean(list(usd_moves.values())), 2, "mean of the dollar's 1-month percent changes against the pairs "
                                                  "with current quotes") if usd_moves else None
    data["pairs_used_in_average"] = sorted(usd_moves)
    if usd_moves:
        data["strongest_vs_usd"] = min(usd_moves, key=usd_moves.get)
        data["weakest_vs_usd"] = max(usd_moves, key=usd_moves.get)

    lead = data.get("broad_dollar", {}).get("change_1m_pct") if BROAD not in stale else None
    lead = lead if lead is not None else data["usd_vs_fresh_pairs_avg_change_1m_pct"]
    signals = []
    if lead is not None:
        direction = "bullish" if lead > 0.75 else "bearish" if lead < -0.75 else "neutral"
        confidence = envelope.degrade(0.45 + min(0.45, abs(lead) / 5), sources, essential=[BROAD])
        signals.append(envelope.signal("usd_direction", direction, confidence, "medium" if abs(lead) > 3 else "low",
                                       f"US dollar {pct_word(lead)} over a month "
                                       "(direction refers to the dollar)"))
    summary = _summary(data, stale) + envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("yield_curve", "the rate moves behind the dollar"),
                              ("market_intelligence", "the dollar in the cross-market picture"),
                              ("dollar_strength", "broad dollar trend and percentile"),
                              ("fx_volatility", "realized volatility per pair"),
                              ("fx_carry", "rate differentials and carry-to-vol"),
                              ("em_fx_stress", "emerging-market currency stress")),
                          methodology="Changes compare the last quote with the last quote on or before the same "
                                      "calendar date; the dollar's move against a pair quoted in dollars per foreign "
                                      "unit is 1 / (1 + change) - 1 (the exact inverse, not the negated change).")


def usd_change_1m(frames: Frames, sid: str, pair: str, usd_is_quote: bool):
    """The dollar's own percent move against the currency over a month (last quote against the last on or
    before the same calendar date), from the two named quotes: a quote in dollars per foreign unit is inverted
    exactly, the earlier quote over the last (quote up 25% -> a dollar buys 1/1.25 = 0.8 foreign units: -20%)."""
    last = envelope.last_obs(frames, sid)
    found = indicators.value_on_or_before(frames.get(sid), last[1] - timedelta(days=HORIZONS["1m"]))
    if found is None:
        return None
    then = (sid, *found)
    if usd_is_quote:
        return envelope.pct_change(then, last, 2, f"the dollar's move against {pair[:3]}: {sid} on {then[1]} over "
                                                  f"{sid} on {last[1]}, minus 1, percent")
    return envelope.pct_change(last, then, 2, f"the dollar's move against {pair[3:]}: percent change of {sid} from "
                                              f"{then[1]} to {last[1]}")


def _summary(data: dict, stale: set) -> str:
    parts = []
    broad = data.get("broad_dollar")
    if broad:
        parts.append(f"The broad trade-weighted dollar stands at {broad['level']}"
                     + (f", {pct_word(broad['change_1m_pct'])} over a month"
                        if broad["change_1m_pct"] is not None else "") + ".")
    avg = data["usd_vs_fresh_pairs_avg_change_1m_pct"]
    if avg is not None:
        parts.append(f"Against the majors with current quotes the dollar moved {avg}% on average over a month; "
                     f"{data['strongest_vs_usd']} was the strongest and {data['weakest_vs_usd']} the weakest.")
    else:
        parts.append("No major pair has a current quote, so no average move is given.")
    listed = [f"{pair} {row['level']}" for pair, row in data["pairs"].items()]
    if listed:
        parts.append("Last quotes: " + ", ".join(listed) + ".")
    return " ".join(parts)


register(Module(name=NAME, category="fx", tier="S", inputs=INPUTS,
                description="Levels and changes of the majors and the broad dollar",
                compute=compute, lookback_days=800))
