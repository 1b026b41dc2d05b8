"""sahm_rule: the Sahm recession indicator (3-month average unemployment minus its prior 12-month low),
trigger state, distance to the 0.50 pp trigger and its history."""
from __future__ import annotations

import numpy as np

from intel import envelope, provenance
from intel.frames import Frames
from intel.modules._common import month_grid, month_label, move_word
from intel.modules._labor import SAHM_TRIGGER_PP, sahm_series
from intel.registry import Module, register

NAME = "sahm_rule"
SERIES = "UNRATE"
TRIGGER = SAHM_TRIGGER_PP
WARNING_PP = 0.30  # a reading of 0.30 pp or more has preceded every trigger: the "watch" zone


def _state(value: float) -> str:
    return "triggered" if value >= TRIGGER else "warning" if value >= WARNING_PP else "normal"


def _figures(frames: Frames, start: int, unrate, ma3, low, sahm, fired) -> dict:
    """The payload's figures (inside a scope on UNRATE): the latest rate names its observation."""
    value = float(sahm[-1])
    last_trigger = int(fired[-1]) if len(fired) else None
    months = len(unrate)
    return {
        "period": month_label(start + months - 1),
        "unemployment_rate_pct": envelope.level(frames, SERIES, 2),
        "avg_3m_pct": envelope.rnd(ma3[-1], 2, "3-month average of the unemployment rate"),
        "low_of_avg_3m_prior_12m_pct": envelope.rnd(low[-1], 2, "lowest 3-month average of the previous 12 months"),
        "sahm_indicator_pp": envelope.rnd(value, 2, "3-month average minus its low of the previous 12 months"),
        "trigger_pp": envelope.constant(TRIGGER, "fixed parameter: the Sahm rule's trigger in pp"),
        "distance_to_trigger_pp": envelope.rnd(TRIGGER - value, 2, "trigger minus the Sahm indicator"),
        "triggered": bool(value >= TRIGGER),
        "state": _state(value),
        "indicator_3m_ago_pp": envelope.rnd(sahm[-4], 2, "Sahm indicator 3 months earlier") if months >= 4 else None,
        "indicator_change_3m_pp": envelope.rnd(value - sahm[-4], 2, "change of the Sahm indicator over 3 months")
        if months >= 4 else None,
        "indicator_high_12m_pp": envelope.rnd(np.nanmax(sahm[-12:]), 2, "highest Sahm indicator of the last 12 months"),
        "last_trigger_month": month_label(start + last_trigger) if last_trigger is not None else None,
        # counts carry the series they were counted on
        "months_since_last_trigger": envelope.count(months - 1 - last_trigger, "months since the last trigger")
        if last_trigger is not None else None,
        "triggers_in_history": envelope.count(len(fired), "count of upward crossings of the trigger"),
        "history_start": month_label(start),
        "months_missing_last_15m": envelope.count(int(np.count_nonzero(~np.isfinite(unrate[-15:]))),
                                                  "count of months absent from the last 15"),
    }


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [SERIES], need="all")
    frame = frames.get(SERIES)
    sources = envelope.data_sources(frames, [SERIES])
    start, unrate = month_grid(frame)
    ma3, low, sahm = sahm_series(unrate)
    # compare at the published precision so 0.4999999 from float averaging does not miss the trigger
    sahm = np.round(sahm, 6)
    if not np.isfinite(sahm[-1]):
        raise envelope.InsufficientData(f"{NAME}: the Sahm indicator needs about 15 consecutive months of {SERIES}")
    finite = np.isfinite(sahm)
    fired = np.flatnonzero(finite[1:] & finite[:-1] & (sahm[1:] >= TRIGGER) & (sahm[:-1] < TRIGGER)) + 1
    with provenance.about(frames, SERIES):
        data = _figures(frames, start, unrate, ma3, low, sahm, fired)
    unavailable = {}
    if data["indicator_change_3m_pp"] is None:
        unavailable["indicator_change_3m_pp"] = "the indicator three months ago needs a longer history"
    signals = [_signal(data, sources)]
    missing = int(data["months_missing_last_15m"])
    summary = (f"The Sahm indicator for {data['period']} is {data['sahm_indicator_pp']} pp: the 3-month average "
               f"unemployment rate of {data['avg_3m_pct']}% against a prior 12-month low of "
               f"{data['low_of_avg_3m_prior_12m_pct']}%. State {data['state']}, "
               + _distance(data["distance_to_trigger_pp"]) + f" the {TRIGGER} pp trigger"
               + (f", {move_word(data['indicator_change_3m_pp'], ' pp')} over three months."
                  if data["indicator_change_3m_pp"] is not None else ".")
               + (f" It last triggered in {data['last_trigger_month']}." if data["last_trigger_month"] else
                  f" It has not triggered since {data['history_start']}.")
               + (f" Note, months missing from the series in the last fifteen: {missing}; averages use the "
                  "months present." if missing else "")
               + envelope.staleness_note(sources))
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("labor_market", "payrolls, claims and openings behind the unemployment rate"),
                              ("recession_probability", "the yield-curve probit combined with the Sahm state"),
                              ("growth", "whether activity data confirm the labour signal"),
                              ("fed_policy", "how a rising unemployment rate shifts the policy path")),
                          methodology=f"Sahm (2019): the 3-month average of the unemployment rate minus the lowest "
                                      f"3-month average of the previous 12 months (months matched by calendar; a "
                                      f"3-month average needs 2 of its months, the prior low 6 of its 12); the rule "
                                      f"triggers at {TRIGGER} pp, {WARNING_PP} pp and above is a warning.",
                          unavailable=unavailable or None)


def _distance(distance: float) -> str:
    """Where the indicator stands against the trigger; a zero distance is "at", with no side."""
    if distance == 0:
        return "at"
    return f"{abs(distance)} pp beyond" if distance < 0 else f"{distance} pp below"


def _signal(data: dict, sources: dict) -> dict:
    value, change = data["sahm_indicator_pp"], data["indicator_change_3m_pp"]
    rising = change is not None and change > 0.1
    if data["triggered"]:
        fresh = data["months_since_last_trigger"] is not None and data["months_since_last_trigger"] <= 3
        direction, urgency = "bearish", "critical" if fresh else "high"
        reason = f"Sahm indicator {value} pp, at or above the {data['trigger_pp']} pp trigger"
    elif data["state"] == "warning":
        direction, urgency = "bearish", "high" if rising else "medium"
        reason = f"Sahm indicator {value} pp, {data['distance_to_trigger_pp']} pp below the trigger"
    elif rising:
        direction, urgency = "neutral", "low"
        reason = f"Sahm indicator low at {value} pp but up {change} pp in three months"
    else:
        direction, urgency = "bullish", "low"
        reason = f"Sahm indicator {value} pp, far from the {data['trigger_pp']} pp trigger"
    confidence = 0.55 + min(0.35, abs(data["distance_to_trigger_pp"]) * 0.7)
    confidence *= 1 - 0.05 * min(data["months_missing_last_15m"], 6)  # gaps make the averages thinner
    return envelope.signal("sahm_state", direction, envelope.degrade(confidence, sources, essential=[SERIES]), urgency,
                           reason + " (direction refers to risk assets)")


register(Module(name=NAME, category="macro", tier="S", inputs=(SERIES,),
                description="Sahm indicator (3m average minus 12m low), trigger state and distance",
                compute=compute, lookback_days=3700))
