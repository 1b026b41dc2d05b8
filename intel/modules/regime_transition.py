"""regime_transition: a daily regime history (risk_on / neutral / risk_off / crisis) from stated rules over
the S&P 500, VIX and the high-yield spread, its empirical transition matrix, the expected duration of each
state, the current state's age, and the odds that it changes within a week and a month."""
from __future__ import annotations

import numpy as np

from intel import envelope, provenance
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import iso_day, runs, transitions
from intel.modules._common import fig, persistence, transition_table
from intel.modules._regime_history import DAILY_RULES, HY, SPX, STATES, VIX, daily_regime, facts_today
from intel.modules._volatility import PERSISTENCE_OPS, counted, named
from intel.registry import Module, register

NAME = "regime_transition"
INPUTS = (SPX, VIX, HY)
HORIZONS = {"1w": 5, "1m": 21}  # sessions ahead
MIN_DAYS = 63  # classified days needed before transition odds mean anything
SHIFT_PCT = 30.0  # odds of a move to a worse (better) state within a month that make the signal bearish (bullish)
DIRECTION = {"risk_on": "bullish", "neutral": "neutral", "risk_off": "bearish", "crisis": "bearish"}


def durations(codes: np.ndarray, next_day: np.ndarray) -> dict:
    """Per state: geometric expected duration from next-day persistence and the completed runs' lengths
    (the first run is cut by the start of history and the last is still going: both left out)."""
    _, lengths, states = runs(codes)
    done_len, done_state = lengths[1:-1], states[1:-1]
    return {state: named(persistence(next_day, i, done_len[done_state == i]), PERSISTENCE_OPS)
            for i, state in enumerate(STATES)}


def change_odds(codes: np.ndarray, current: int, age: int) -> dict:
    """Odds of being in another state h sessions ahead, from every past day in the current state, and the
    age-aware version: the share of completed runs that had lasted `age` sessions and ended within h more."""
    _, lengths, states = runs(codes)
    done = lengths[1:-1][states[1:-1] == current]
    reached = done[done >= age]
    out = {}
    for label, h in HORIZONS.items():
        row = transitions(codes, h)[current]
        n = int(row.sum())
        ended = reached[reached < age + h]
        later = f"{h} sessions later"
        out[label] = {
            "change_pct": envelope.rnd((n - row[current]) / n * 100, 1,
                                       f"percent of past days in this state in another {later}") if n else None,
            "worse_pct": envelope.rnd(row[current + 1:].sum() / n * 100, 1, f"percent of past days in this state in a "
                                      f"worse one {later}") if n else None,
            "better_pct": envelope.rnd(row[:current].sum() / n * 100, 1, f"percent of past days in this state in a "
                                       f"better one {later}") if n else None,
            "observations": envelope.count(n, f"count of past days in this state with a state {later}"),
            "run_ends_given_age_pct": envelope.rnd(len(ended) / len(reached) * 100, 1,
                                                   f"percent of completed runs that "
                                                   f"reached this age and ended within {h} more sessions")
            if len(reached) else None,
            "runs_that_reached_age": envelope.count(len(reached), "count of completed runs that reached this age"),
        }
    return out


def _table(frames: Frames, used: list[str], next_day: np.ndarray) -> dict:
    with provenance.about(frames, *used, operation="share of days in the row's state with the column's state the next "
                                                   "session"):
        return counted(transition_table(next_day, STATES), "count of days in the row's state")


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    history = daily_regime(frames)
    if history is None or len(history["codes"]) < MIN_DAYS:
        raise InsufficientData(f"{NAME}: fewer than {MIN_DAYS} days can be classified from {', '.join(INPUTS)}")
    days, codes = history["days"], history["codes"]
    current = int(codes[-1])
    state = STATES[current]
    starts, lengths, _ = runs(codes)
    age = int(lengths[-1])
    next_day = transitions(codes, 1)
    # where the state tends to go when it does change (off-diagonal of the next-day row)
    off = next_day[current].astype(float)
    off[current] = 0
    used = history["inputs_used"]  # every figure of the history rests on the series its rules read
    with provenance.about(frames, *used, operation="from the daily regime history (see methodology)"):
        odds = change_odds(codes, current, age)
        data = {
            "state": state, "since": iso_day(days[starts[-1]]),
            "sessions_in_state": envelope.count(age, "count of sessions in the current run of the state"),
            "facts_today": facts_today(frames, history),
            "odds_of_change": odds,
            "most_likely_next_state": STATES[int(np.argmax(off))] if off.sum() else None,
            "transition_next_day": _table(frames, used, next_day),
            "expected_duration": durations(codes, next_day),
            "share_of_time_pct": {s: envelope.rnd((codes == i).mean() * 100, 1, "percent of classified days in this "
                                                                                "state") for i, s in enumerate(STATES)},
            "regime_changes": envelope.count(len(starts) - 1, "count of changes of state in the history"),
            "sample": {"start": iso_day(days[0]), "end": iso_day(days[-1]),
                       "days_classified": envelope.count(len(codes), "count of days classified"),
                       "inputs_used": used},
        }
    unavailable = {}
    if SPX not in history["inputs_used"]:
        unavailable["sp500_rules"] = ("S&P 500 missing or shorter than 260 observations: trend and drawdown rules "
                                      "left out")
    if VIX not in history["inputs_used"]:
        unavailable["vix_rules"] = "VIX missing: volatility rules left out"
    if HY not in history["inputs_used"]:
        unavailable["credit_rules"] = "high-yield spread missing or too short: credit rules left out"
    m = odds["1m"]
    dur = data["expected_duration"][state]
    persistence = 1 - (m["change_pct"] or 0) / 100
    n_used = len(history["inputs_used"])
    confidence = envelope.degrade((0.3 + 0.45 * persistence) * (0.6 + 0.4 * n_used / 3), sources, essential=[VIX])
    urgency = {"crisis": "high", "risk_off": "medium"}.get(state, "low")
    signals = [envelope.signal("regime_state", DIRECTION[state], confidence, urgency,
                               f"daily rules put the market in {state} for {age} sessions; it changed within a month "
                               f"{fig(m['change_pct'])}% of the time")]
    worse, better = m["worse_pct"] or 0.0, m["better_pct"] or 0.0
    shift = "bearish" if worse >= SHIFT_PCT and worse >= better else \
        "bullish" if better >= SHIFT_PCT and better > worse else "neutral"
    signals.append(envelope.signal(
        "regime_shift_odds_1m", shift, envelope.degrade(min(0.8, 0.3 + m["observations"] / 2000), sources, [VIX]),
        "medium" if max(worse, better) >= 50 else "low",
        f"within a month from {state}: worse state {fig(m['worse_pct'])}%, better {fig(m['better_pct'])}% "
        f"(from {int(m['observations'])} past days)"))
    w = odds["1w"]
    summary = (f"Daily regime rules put the market in {state} since {data['since']} ({age} sessions). Over "
               f"{len(codes)} classified days since {data['sample']['start']}, this state "
               f"persisted to the next session with probability {fig(dur['next_day_persistence'])} (geometric "
               f"expected duration {fig(dur['expected_duration_geometric_sessions'])} sessions; completed runs "
               f"averaged {fig(dur['mean_completed_run_sessions'])}). From days in this state it was in another "
               f"state a week later {fig(w['change_pct'])}% of the time and a month later {fig(m['change_pct'])}% "
               f"(worse {fig(m['worse_pct'])}%, better {fig(m['better_pct'])}%).")
    if m["run_ends_given_age_pct"] is not None:
        summary += (f" Of the {int(m['runs_that_reached_age'])} past runs that lasted this long, "
                    f"{m['run_ends_given_age_pct']}% ended within the following month.")
    if unavailable:
        summary += " Rules left out for missing inputs: " + ", ".join(sorted(unavailable)).replace("_", " ") + "."
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("market_regime", "the live cross-asset regime with all its rules and probabilities"),
                              ("volatility_regime", "transition odds of the VIX states alone"),
                              ("crash_risk", "whether a move to crisis is being flagged"),
                              ("credit_stress", "the credit side of the regime"),
                              ("signal_composite", "what the trading signals say within the regime")),
                          methodology=DAILY_RULES + " The transition matrix counts next-session state pairs over all "
                                      "classified days, normalised by row; expected duration is 1/(1 - persistence) "
                                      "beside the mean of completed runs; odds of change count the state 5 and 21 "
                                      "sessions after every past day in the current state; the age-aware odds use "
                                      "completed runs that had lasted as long as the current one.")


register(Module(name=NAME, category="regime", tier="P", inputs=INPUTS,
                description="Empirical regime transition matrix, expected durations, odds of change",
                compute=compute, lookback_days=7700))
