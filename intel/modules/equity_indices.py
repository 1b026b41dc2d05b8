"""equity_indices: S&P 500 and Nasdaq levels, returns, distance to the 50/200-day averages, trend and crosses."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import drawdown_profile, fig, pct_word, trend_profile
from intel.modules._equities import calendar_returns
from intel.registry import Module, register

NAME = "equity_indices"
INDICES = {"SP500": "S&P 500", "NASDAQCOM": "Nasdaq Composite"}


def _index(frames: Frames, sid: str) -> dict:
    """One index: its level and returns from named closes, the rest from its own history."""
    frame = frames.get(sid)
    out = {"level": envelope.level(frames, sid, 2, op="latest close"), "date": frame["date"][-1].isoformat()}
    out.update(calendar_returns(frame, sid))
    year = indicators.window(frame, 365)
    with provenance.about(frames, sid):
        out.update(trend_profile(frame))
        out.update(drawdown_profile(year))
        out["max_drawdown_pct"] = envelope.rnd(out["max_drawdown_pct"], 2, "deepest drawdown within the past year")
        out["days_since_high"] = envelope.count(out["days_since_high"], "calendar days since the 1-year high")
        out["realized_vol_21d_pct"] = envelope.rnd(indicators.realized_vol(frame["value"].to_numpy(), 21), 2)
    # the 1-year high is one close: published with its date, and the drawdown from it recomputable
    peak = envelope.nth_obs(year, sid, int(np.argmax(year["value"].to_numpy())))  # the first, as drawdown_profile
    out["high"] = envelope.observed_level(peak, 2, "highest close of the past year")
    out["drawdown_from_high_pct"] = envelope.pct_change(envelope.last_obs(frame, sid), peak, 2,
                                                        "percent change from the 1-year high to the latest close")
    return out


def _from_high(d: dict) -> str:
    """Where the close sits against the 1-year high, with no 'below' on a drawdown that rounds to zero."""
    if not d["days_since_high"]:
        return "it closed at its 1-year high."
    if not d["drawdown_from_high_pct"]:
        return "it sits fractionally below its 1-year high."
    return f"it sits {abs(d['drawdown_from_high_pct'])}% below its 1-year high."


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INDICES)
    sources = envelope.data_sources(frames, INDICES)
    data = {sid: _index(frames, sid) for sid in INDICES if frames.get(sid) is not None}
    signals, sentences = [], []
    for sid, d in data.items():
        label = INDICES[sid]
        state, dist = d["trend_state"], d["distance_to_sma200_pct"]
        direction = {"uptrend": "bullish", "downtrend": "bearish"}.get(state, "neutral")
        confidence = 0.5 + min(0.4, abs(dist or 0) / 25)
        if d["drawdown_from_high_pct"] <= -20:
            urgency = "high"
        elif d["drawdown_from_high_pct"] <= -10:
            urgency = "medium"
        else:
            urgency = "low"
        confidence = envelope.degrade(confidence, sources, essential=[sid])
        signals.append(envelope.signal(f"{sid.lower()}_trend", direction, confidence, urgency,
                                       f"{label} in {state.replace('_', ' ')}, {dist}% from its 200-day average"
                                       if dist is not None else f"{label}: too short a history for the 200-day "
                                                                "average"))
        cross = (f"; last golden cross {d['last_golden_cross']}" if d["last_golden_cross"] else "") + \
                (f"; last death cross {d['last_death_cross']}" if d["last_death_cross"] else "")
        sentences.append(
            f"The {label} closed at {d['level']} ({pct_word(d['change_1d_pct'])} on the day, "
            f"{pct_word(d['change_1m_pct'])} over a month, {pct_word(d['change_ytd_pct'])} year to date), "
            f"{fig(d['distance_to_sma50_pct'], '%')} from its 50-day and {fig(dist, '%')} from its 200-day average, "
            f"trend: {state.replace('_', ' ')}{cross}; "
            + _from_high(d))
    summary = " ".join(sentences) + envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("vix", "implied volatility behind the index moves"),
                              ("credit_spreads", "whether credit confirms the equity trend"),
                              ("equity_momentum", "multi-horizon momentum and trend strength"),
                              ("equity_drawdown", "recovery times from similar drawdowns"),
                              ("market_breadth", "whether sectors confirm the index trend"),
                              ("equity_volatility", "realized volatility regime")),
                          methodology="Moving averages count observations (trading days); returns compare the "
                                      "last close with the last close on or before the same calendar date.")


register(Module(name=NAME, category="equities", tier="S", inputs=tuple(INDICES),
                description="Index levels, returns 1d..1y, distance to 50/200-day averages, trend, crosses",
                compute=compute, lookback_days=800))
