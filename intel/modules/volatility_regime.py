"""volatility_regime: low/normal/elevated/crisis state from VIX, with empirical transition odds between
states (next session and 21 sessions ahead), how long the current state tends to last, and what the
S&P 500 did next in each state."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import day_numbers, iso_day, runs, transitions
from intel.modules._common import persistence, transition_table
from intel.modules._volatility import (
    PERSISTENCE_OPS,
    VIX_BOUNDS,
    VIX_STATES,
    counted,
    named,
    vix_state_codes,
)
from intel.registry import Module, register

NAME = "volatility_regime"
VIX, SPX = "VIXCLS", "SP500"
HORIZON = 21  # sessions ahead for the longer transition matrix and the forward S&P 500 return
SHIFT_ODDS_PCT = 30.0  # 21-session odds of a worse (better) state that make the shift signal bearish (bullish)
MIN_OBS = 63  # fewer VIX closes than this give no meaningful transition odds


def duration_block(codes: np.ndarray, next_day: np.ndarray) -> dict:
    starts, lengths, states = runs(codes)
    current, age = int(states[-1]), int(lengths[-1])
    # completed runs: the last is still going and the first began before the history did
    done_len, done_state = lengths[1:-1], states[1:-1]
    mine = done_len[done_state == current]
    longer = mine[mine > age]
    return {
        "sessions_in_state": envelope.count(age, "count of sessions in the current run of the state"),
        "since": None,  # date filled by the caller
        "start_index": int(starts[-1]),
        **named(persistence(next_day, current, mine), PERSISTENCE_OPS),
        "runs_that_lasted_longer": envelope.count(len(longer), "count of completed past runs longer than this one"),
        "expected_remaining_sessions": envelope.rnd((longer - age).mean(), 1, "mean further sessions of past runs of "
                                                                           "this state that lasted as long")
        if len(longer) else None,
    }


def forward_by_state(vix_days, codes, spx) -> dict | None:
    """Mean S&P 500 return over the next 21 sessions (and the share positive) by VIX state that day."""
    sdays, close = day_numbers(spx), spx["value"].to_numpy()
    if len(close) <= HORIZON:
        return None
    fwd = (close[HORIZON:] / close[:-HORIZON] - 1) * 100
    common, iv, is_ = np.intersect1d(vix_days, sdays[:-HORIZON], return_indices=True)
    if not len(common):
        return None
    states, moves = codes[iv], fwd[is_]
    out = {}
    for k, state in enumerate(VIX_STATES):
        m = moves[states == k]
        out[state] = {"mean_return_next_21d_pct": envelope.rnd(m.mean(), 2, "mean S&P 500 return over the next 21 "
                                                                            "sessions after days in this VIX state")
                      if len(m) else None,
                      "positive_share_pct": envelope.rnd((m > 0).mean() * 100, 1, "percent of those 21-session "
                                                                                  "returns above zero")
                      if len(m) else None,
                      "observations": envelope.count(len(m), "count of days in this VIX state with a forward return")}
    out["sample_start"] = iso_day(common[0])
    return out


def state_table(frames: Frames, counts: np.ndarray, when: str) -> dict:
    """The VIX state transition table, each share and count named as resting on VIX with its operation."""
    with provenance.about(frames, VIX,
                          operation=f"share of days in the row's VIX state with the column's state {when}"):
        return counted(transition_table(counts, VIX_STATES), "count of days in the row's VIX state")


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [VIX], need="all")
    vix, spx = frames.get(VIX), frames.get(SPX)
    sources = envelope.data_sources(frames, [VIX, SPX])
    if vix.height < MIN_OBS:
        raise InsufficientData(f"{NAME}: needs {MIN_OBS} VIX closes for transition odds, has {vix.height}")
    days, level = day_numbers(vix), vix["value"].to_numpy()
    codes = vix_state_codes(level)
    state, current = VIX_STATES[int(codes[-1])], int(codes[-1])
    next_day, ahead = transitions(codes, 1), transitions(codes, HORIZON)
    row = ahead[current]
    n21 = int(row.sum())
    with provenance.about(frames, VIX, operation="from the daily VIX state history (see methodology)"):
        duration = duration_block(codes, next_day)
        duration["since"] = iso_day(days[duration.pop("start_index")])
        odds = {"worse_pct": envelope.rnd(row[current + 1:].sum() / n21 * 100, 1, "percent of past days in this state "
                                          "followed by a worse one 21 sessions later") if n21 else None,
                "same_pct": envelope.rnd(row[current] / n21 * 100, 1, "percent of past days in this state followed by "
                                         "the same one 21 sessions later") if n21 else None,
                "better_pct": envelope.rnd(row[:current].sum() / n21 * 100, 1, "percent of past days in this state "
                                           "followed by a better one 21 sessions later") if n21 else None,
                "observations": envelope.count(n21, "count of past days in this state with a state 21 sessions on")}
        data = {
            "vix": envelope.level(frames, VIX, 2), "date": iso_day(days[-1]), "state": state,
            "thresholds": {k: envelope.constant(b, "VIX state bound fixed by the method")
                           for k, b in zip(("low_below", "normal_below", "elevated_below"), VIX_BOUNDS, strict=True)},
            "share_of_time_pct": {s: envelope.rnd((codes == k).mean() * 100, 1, "percent of VIX closes in this state")
                                  for k, s in enumerate(VIX_STATES)},
            "current_state": duration, "odds_21d_from_current": odds,
            "transition_next_day": state_table(frames, next_day, "the next session"),
            "transition_21d": state_table(frames, ahead, "21 sessions later"),
            "sample": {"start": iso_day(days[0]),
                       "observations": envelope.count(len(codes), "count of VIX closes classified")},
        }
    unavailable = None
    rv = indicators.realized_vol(spx["value"].to_numpy(), HORIZON) if spx is not None else None
    with provenance.about(frames, VIX, SPX):
        forward = forward_by_state(days, codes, spx) if spx is not None else None
    if rv is not None:
        with provenance.about(frames, SPX):
            data["sp500_realized_vol_21d_pct"] = envelope.rnd(rv, 2, "annualized sd of the last 21 S&P 500 daily log "
                                                                     "returns, percent")
        data["realized_vol_implied_state"] = VIX_STATES[int(vix_state_codes([rv])[0])]
    if forward is not None:
        data["sp500_forward_by_state"] = forward
    if rv is None or forward is None:
        unavailable = {"sp500": "S&P 500 missing or shorter than 22 closes: no realized-vol cross-check or "
                                "forward returns by state"}

    worse, better = odds["worse_pct"] or 0.0, odds["better_pct"] or 0.0
    if state == "crisis":
        direction, urgency = "bearish", "critical" if level[-1] >= 40 else "high"
    elif state == "elevated":
        direction, urgency = "bearish", "medium"
    elif state == "low":
        direction, urgency = "bullish", "low"
    else:
        direction, urgency = "neutral", "medium" if worse > 30 else "low"
    same = (odds["same_pct"] or 0.0) / 100
    confidence = envelope.degrade(0.4 + 0.45 * same, sources, essential=[VIX])
    signals = [envelope.signal("volatility_state", direction, confidence, urgency,
                               f"VIX {data['vix']}: {state} state for {int(duration['sessions_in_state'])} sessions, "
                               f"{odds['same_pct']}% odds of the same state on a 21-session horizon")]
    if n21:
        # a move either way is called only when history gives it at least SHIFT_ODDS_PCT odds
        shift = "bearish" if worse >= SHIFT_ODDS_PCT and worse > better else \
            "bullish" if better >= SHIFT_ODDS_PCT and better > worse else "neutral"
        signals.append(envelope.signal("regime_shift_odds", shift,
                                       envelope.degrade(min(0.8, 0.3 + n21 / 2000), sources, [VIX]),
                                       "medium" if max(worse, better) >= 40 else "low",
                                       f"on a 21-session horizon: worse state {odds['worse_pct']}%, better "
                                       f"{odds['better_pct']}% (from {n21} past days in this state)"))
    t = data["thresholds"]
    summary = (f"VIX at {data['vix']} puts volatility in the {state} state (low below {t['low_below']:g}, normal "
               f"below {t['normal_below']:g}, elevated below {t['elevated_below']:g}, crisis at or above it), "
               f"where it has been for {int(duration['sessions_in_state'])} sessions since {duration['since']}. "
               f"Historically this state persisted to the next session with probability "
               f"{duration['next_day_persistence']}, and on a 21-session horizon it stayed {odds['same_pct']}%, "
               f"worsened {odds['worse_pct']}% and eased {odds['better_pct']}% of the time "
               f"(from {n21} days since {data['sample']['start']}).")
    if duration["expected_remaining_sessions"] is not None:
        summary += (f" Past runs of this state that lasted this long went on for another "
                    f"{duration['expected_remaining_sessions']} sessions on average.")
    if forward is not None and forward[state]["mean_return_next_21d_pct"] is not None:
        summary += (f" After days in this state the S&P 500 returned {forward[state]['mean_return_next_21d_pct']}% "
                    f"on average over the next 21-session span.")
    if unavailable:
        summary += " The S&P 500 is missing or too short, so no forward returns by state are given."
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable,
                          related_modules=envelope.related(
                              ("vix", "VIX level, spikes and bands"),
                              ("vix_term_structure", "whether the curve confirms the state"),
                              ("vol_of_vol", "how unstable VIX itself is"),
                              ("tail_risk", "expected shortfall within the state"),
                              ("market_regime", "the cross-asset regime beside the volatility state")),
                          methodology="Each day's VIX close is classed low (below 15), normal (15 to 20), elevated "
                                      "(20 to 30) or crisis (30 or more). Transition matrices count, over all "
                                      "history available, the state one and 21 observations later, normalised by "
                                      "row. Expected duration: 1/(1 - next-day persistence) (geometric) beside "
                                      "the empirical completed runs; expected remaining time averages what past "
                                      "runs that had lasted as long went on for. Forward S&P 500 returns are close "
                                      "to close over the next 21 sessions, grouped by that day's state.")


register(Module(name=NAME, category="volatility", tier="P", inputs=(VIX, SPX),
                description="Low/normal/elevated/crisis VIX state with empirical transition odds and durations",
                compute=compute, lookback_days=7700))
