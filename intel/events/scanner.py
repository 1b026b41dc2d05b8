"""The event scanner: after each refresh, the freshly published module payloads against what the previous scan read,
on the market clock. Pure: payloads, state and the clock in; events, the new state and what it detected out.

One rule function per event type (RULES), each with the thresholds of its `rule` text in intel/events/types.py.
A rule reads figures from the payloads' `data`, returns what it observed (remembered for the next scan and shown
as the detected state) and its findings. Level rules (VIX at 30 or more) judge the payload alone; change rules
(a regime change) compare with the previous scan's reading, so the first scan, having none, emits only levels.

A finding carries a `basis`: the observation it rests on (a data date, a candle's close time). A type never fires
twice on the same basis (the last BASES_KEPT are remembered), so a daily close seen by many scans announces itself
once; and never within its cooldown on the market clock.

The state (JSON, kept by the caller): `scans`, `last_scan_at`, `events_emitted` {type: n}, `last_fired`
{type: ISO time}, `bases` {type: [basis, ...]}, `previous` {type: observed}, `prediction_seq` (the live prediction
chain's last seq read)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from intel.events.types import EVENT_TYPES, URGENCIES

NEW_YORK = ZoneInfo("America/New_York")  # the economic calendar's `time_et`

VIX_LEVEL, VIX_CRITICAL, VIX_JUMP_PCT = 30.0, 40.0, 25.0
TAIL_RISE_POINTS, TAIL_LEVEL = 15.0, 70.0
BTC_MOVE_PCT, INDEX_MOVE_PCT = 8.0, 5.0
HY_JUMP_BP, HY_LEVEL_PCT = 50.0, 7.0
COMPOSITE_SHIFT, COMPOSITE_LARGE_SHIFT = 0.3, 0.6
BASES_KEPT = 20  # more than the findings one type can have in a few days (two indices and bitcoin a day)


@dataclass(frozen=True)
class ScanInput:
    payloads: dict[str, dict]  # module name -> payload envelope (with `data` and `data_as_of`)
    now: datetime  # the market clock
    since: datetime | None  # the previous scan's market time; None on the first scan
    resolutions: tuple[dict, ...] = ()  # live chain resolution records since the last seq read: seq, body


@dataclass(frozen=True)
class Finding:
    urgency: str
    summary: str  # one sentence, every number from `figures`
    figures: list[dict]  # [{"module", "field", "value"}]
    data_as_of: str
    basis: str | None = None  # the observation it rests on; None: the rule's own window rules out repeats


@dataclass
class Reading:
    observed: dict = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)


Rule = Callable[[ScanInput, dict | None], Reading]


def figure(module: str, field_path: str, value) -> dict:
    return {"module": module, "field": field_path, "value": value}


def read(payloads: dict[str, dict], module: str, field_path: str):
    """The value at a dotted path of a module's `data`, or None when the module or the field is absent."""
    node = (payloads.get(module) or {}).get("data")
    for part in field_path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def data_of(payloads: dict[str, dict], module: str) -> dict:
    return (payloads.get(module) or {}).get("data") or {}


def as_of(payloads: dict[str, dict], module: str) -> str | None:
    payload = payloads.get(module) or {}
    return payload.get("data_as_of") or payload.get("as_of")


def regime_change(scan: ScanInput, previous: dict | None) -> Reading:
    state = read(scan.payloads, "market_regime", "state")
    if state is None:
        return Reading()
    day = as_of(scan.payloads, "market_regime")
    reading = Reading({"state": state, "data_as_of": day})
    before = (previous or {}).get("state")
    if before is not None and before != state:
        reading.findings.append(Finding(
            "critical" if state == "crisis" else "high",
            f"The cross-asset regime changed from {before} to {state}.",
            [figure("market_regime", "state", state),
             figure("market_regime", "probabilities." + state, read(scan.payloads, "market_regime",
                                                                     "probabilities." + state))],
            day, f"{before}->{state}@{day}"))
    return reading


def vix_spike(scan: ScanInput, previous: dict | None) -> Reading:
    level, jump = read(scan.payloads, "vix", "level"), read(scan.payloads, "vix", "change_1d_pct")
    if level is None:
        return Reading()
    day = as_of(scan.payloads, "vix")
    reading = Reading({"level": level, "change_1d_pct": jump, "data_as_of": day})
    high, jumped = level >= VIX_LEVEL, jump is not None and jump >= VIX_JUMP_PCT
    if high or jumped:
        why = f"VIX closed at {level}" + (f", up {jump}% in a day" if jumped else "") + "."
        figures = [figure("vix", "level", level)] + ([figure("vix", "change_1d_pct", jump)] if jumped else [])
        reading.findings.append(Finding("critical" if level >= VIX_CRITICAL else "high", why, figures, day, day))
    return reading


def tail_risk_rise(scan: ScanInput, previous: dict | None) -> Reading:
    score = read(scan.payloads, "tail_risk", "stress_composite.score")
    if score is None:
        return Reading()
    day = as_of(scan.payloads, "tail_risk")
    reading = Reading({"score": score, "data_as_of": day})
    before = (previous or {}).get("score")
    if before is None:
        return reading
    rise = round(score - before, 2)
    rose, crossed = rise >= TAIL_RISE_POINTS, before < TAIL_LEVEL <= score
    if rose or crossed:
        reading.findings.append(Finding(
            "high" if rose and crossed else "medium",
            f"The tail-risk stress score rose from {before} to {score}.",
            [figure("tail_risk", "stress_composite.score", score)], day, day))
    return reading


def correlation_break(scan: ScanInput, previous: dict | None) -> Reading:
    breaks = read(scan.payloads, "correlation_breaks", "breaks")
    if breaks is None:
        return Reading()
    day = as_of(scan.payloads, "correlation_breaks")
    broken = sorted(b["pair"] for b in breaks)
    reading = Reading({"pairs_broken": broken, "data_as_of": day})
    known = set((previous or {}).get("pairs_broken", ()))
    new = [b for b in breaks if b["pair"] not in known]  # the first scan: every broken pair is new
    if new:
        top = new[0]  # the module ranks breaks by |z|
        i, total = breaks.index(top), read(scan.payloads, "correlation_breaks", "pairs_broken")
        reading.findings.append(Finding(
            "medium", f"The {top['assets']} correlation left its usual range (z-score {top['zscore']}); "
                      f"{total} pairs are outside theirs.",
            [figure("correlation_breaks", f"breaks.{i}.zscore", top["zscore"]),
             figure("correlation_breaks", "pairs_broken", total)],
            day, f"{','.join(sorted(b['pair'] for b in new))}@{day}"))
    return reading


def flash_crash(scan: ScanInput, previous: dict | None) -> Reading:
    reading = Reading()
    intraday = read(scan.payloads, "bitcoin", "intraday") or {}
    move = intraday.get("change_24h_pct")
    if move is not None:
        reading.observed["bitcoin_change_24h_pct"] = move
        if abs(move) >= BTC_MOVE_PCT:
            reading.findings.append(Finding(
                "critical", f"Bitcoin moved {move}% over the hourly candles of the past day.",
                [figure("bitcoin", "intraday.change_24h_pct", move)],
                intraday["last_close_ts"][:10], f"bitcoin@{intraday['last_close_ts']}"))
    for name, stats in sorted(data_of(scan.payloads, "equity_indices").items()):
        change = stats.get("change_1d_pct") if isinstance(stats, dict) else None
        if change is None:
            continue
        reading.observed[f"{name}_change_1d_pct"] = change
        if abs(change) >= INDEX_MOVE_PCT:
            reading.findings.append(Finding(
                "critical", f"The {name} index moved {change}% in one day, to {stats['level']}.",
                [figure("equity_indices", f"{name}.change_1d_pct", change),
                 figure("equity_indices", f"{name}.level", stats["level"])],
                stats.get("date") or as_of(scan.payloads, "equity_indices"), f"{name}@{stats.get('date')}"))
    return reading


def credit_stress(scan: ScanInput, previous: dict | None) -> Reading:
    oas, jump = (read(scan.payloads, "credit_spreads", f"high_yield.{f}") for f in ("oas_pct", "change_1w_bp"))
    if oas is None:
        return Reading()
    day = as_of(scan.payloads, "credit_spreads")
    reading = Reading({"high_yield_oas_pct": oas, "change_1w_bp": jump, "data_as_of": day})
    wide, jumped = oas > HY_LEVEL_PCT, jump is not None and jump >= HY_JUMP_BP
    if wide or jumped:
        text = f"The high-yield spread stands at {oas}%" + (f", up {jump} bp in a week" if jumped else "") + "."
        figures = [figure("credit_spreads", "high_yield.oas_pct", oas)]
        figures += [figure("credit_spreads", "high_yield.change_1w_bp", jump)] if jumped else []
        reading.findings.append(Finding("critical" if wide and jumped else "high", text, figures, day, day))
    return reading


def _curve(scan: ScanInput, previous: dict | None, inverting: bool) -> Reading:
    slope = read(scan.payloads, "curve_dynamics", "segments.2s10s.slope_bp")
    if slope is None:
        return Reading()
    day = as_of(scan.payloads, "curve_dynamics")
    reading = Reading({"slope_2s10s_bp": slope, "data_as_of": day})
    before = (previous or {}).get("slope_2s10s_bp")
    if before is not None and (before >= 0 > slope if inverting else before < 0 <= slope):
        state = "inverted" if inverting else "is no longer inverted"
        reading.findings.append(Finding(
            "medium", f"The 2s10s Treasury curve {state}: its slope went from {before} bp to {slope} bp.",
            [figure("curve_dynamics", "segments.2s10s.slope_bp", slope)], day, day))
    return reading


def curve_inversion(scan: ScanInput, previous: dict | None) -> Reading:
    return _curve(scan, previous, inverting=True)


def curve_uninversion(scan: ScanInput, previous: dict | None) -> Reading:
    return _curve(scan, previous, inverting=False)


def composite_shift(scan: ScanInput, previous: dict | None) -> Reading:
    score = read(scan.payloads, "signal_composite", "composite")
    if score is None:
        return Reading()
    day = as_of(scan.payloads, "signal_composite")
    call = read(scan.payloads, "signal_composite", "composite_call")
    reading = Reading({"composite": score, "call": call, "data_as_of": day})
    before = (previous or {}).get("composite")
    if before is not None and abs(score - before) >= COMPOSITE_SHIFT:
        reading.findings.append(Finding(
            "high" if abs(score - before) >= COMPOSITE_LARGE_SHIFT else "medium",
            f"The composite signal score moved from {before} to {score} ({call}).",
            [figure("signal_composite", "composite", score), figure("signal_composite", "composite_call", call)],
            day, day))
    return reading


def economic_release(scan: ScanInput, previous: dict | None) -> Reading:
    """Calendar releases (yesterday's and earlier under `recent`, today's under `upcoming`) whose time passed in
    (previous scan, now]: that window alone keeps a release from being announced twice."""
    day = as_of(scan.payloads, "economic_calendar")
    reading = Reading({"data_as_of": day} if day else {})
    if scan.since is None or day is None:
        return reading
    for section in ("recent", "upcoming"):
        for i, item in enumerate(read(scan.payloads, "economic_calendar", section) or []):
            released = release_time(item)
            if released is None or not scan.since < released <= scan.now:
                continue
            path = f"{section}.{i}"
            figures = [figure("economic_calendar", f"{path}.event", item["event"]),
                       figure("economic_calendar", f"{path}.date", item["date"]),
                       figure("economic_calendar", f"{path}.time_et", item["time_et"])]
            text = f"{item['event']} came out on {item['date']} at {item['time_et']} ET"
            for sid, printed in sorted((item.get("printed") or {}).items()):
                if printed:
                    figures.append(figure("economic_calendar", f"{path}.printed.{sid}.value", printed["value"]))
                    text += f", {sid} printing {printed['value']}"
            reading.findings.append(Finding("medium" if item.get("importance") == "high" else "low", text + ".",
                                            figures, day))
    return reading


def release_time(item: dict) -> datetime | None:
    try:
        hour, minute = (int(x) for x in item["time_et"].split(":"))
        return datetime.combine(date.fromisoformat(item["date"]), time(hour, minute), NEW_YORK)
    except (KeyError, TypeError, ValueError):
        return None


def prediction_resolved(scan: ScanInput, previous: dict | None) -> Reading:
    reading = Reading()
    if scan.since is None:  # the first scan: resolutions before it are history, not news
        return reading
    for record in scan.resolutions:
        body = record["body"]
        verdict = "came true" if body["outcome"] else "did not come true"
        reading.findings.append(Finding(
            "low", f"Prediction {body['prediction_id']} {verdict}: the observed value was {body['observed_value']} "
                   f"on {body['observed_on']}.",
            [figure("predictions", "outcome", body["outcome"]),
             figure("predictions", "observed_value", body["observed_value"])],
            body["observed_on"] or body["resolved_on"]))
    return reading


RULES: dict[str, Rule] = {
    "market.regime_change": regime_change,
    "market.vix_spike": vix_spike,
    "market.tail_risk_rise": tail_risk_rise,
    "market.correlation_break": correlation_break,
    "market.flash_crash": flash_crash,
    "market.credit_stress": credit_stress,
    "market.curve_inversion": curve_inversion,
    "market.curve_uninversion": curve_uninversion,
    "market.composite_shift": composite_shift,
    "economic.release": economic_release,
    "prediction.resolved": prediction_resolved,
}
# What the route shows as detected state: each rule's reading under a topic (the two curve rules read one figure).
TOPICS = {"market.regime_change": "regime", "market.vix_spike": "vix", "market.tail_risk_rise": "tail_risk",
          "market.correlation_break": "correlations", "market.flash_crash": "fast_moves",
          "market.credit_stress": "credit", "market.curve_inversion": "curve", "market.curve_uninversion": "curve",
          "market.composite_shift": "composite", "economic.release": "economic_calendar",
          "prediction.resolved": "predictions"}


def scan(payloads: dict[str, dict], state: dict, now: datetime, data_source: str, simulated: bool,
         resolutions: Sequence[dict] = (), prediction_seq: int | None = None) -> tuple[list[dict], dict, dict]:
    """(events without ids, the new state, the detected state). `resolutions`: live-chain resolution records
    (seq, body) after `state["prediction_seq"]`; `prediction_seq`: the chain's last seq the caller read through."""
    since = datetime.fromisoformat(state["last_scan_at"]) if state.get("last_scan_at") else None
    given = ScanInput(payloads, now, since, tuple(resolutions))
    previous, last_fired = state.get("previous", {}), dict(state.get("last_fired", {}))
    bases = {name: list(b) for name, b in state.get("bases", {}).items()}
    emitted = {name: state.get("events_emitted", {}).get(name, 0) for name in RULES}
    events, observed = [], {}
    for name, rule in RULES.items():
        reading = rule(given, previous.get(name) if since else None)
        observed[name] = reading.observed
        cooldown = EVENT_TYPES[name].cooldown_s
        for finding in reading.findings:
            if finding.basis is not None and finding.basis in bases.get(name, ()):
                continue
            if cooldown and cooldown_left(cooldown, last_fired.get(name), now) > 0:
                break  # one event per type within its cooldown; what it held back may fire once it ends
            events.append(event(name, finding, now, data_source, simulated))
            emitted[name] += 1
            last_fired[name] = now.isoformat()
            if finding.basis is not None:
                bases[name] = [*bases.get(name, ()), finding.basis][-BASES_KEPT:]
    seqs = [r["seq"] for r in resolutions]
    new_state = {"scans": state.get("scans", 0) + 1, "last_scan_at": now.isoformat(), "events_emitted": emitted,
                 "last_fired": last_fired, "bases": bases, "previous": observed,
                 "prediction_seq": max([prediction_seq or 0, state.get("prediction_seq") or 0, *seqs])}
    return events, new_state, detected(observed)


def event(name: str, finding: Finding, now: datetime, data_source: str, simulated: bool) -> dict:
    assert finding.urgency in URGENCIES, finding.urgency
    return {"type": name, "urgency": finding.urgency, "occurred_at": now.isoformat(),
            "data_as_of": finding.data_as_of, "summary": finding.summary, "figures": finding.figures,
            "simulated": simulated, "data_source": data_source, "audience": None}


def detected(observed: dict[str, dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for name, reading in observed.items():
        out.setdefault(TOPICS[name], {}).update(reading)
    return out


def cooldown_left(cooldown_s: int, fired_at: str | None, now: datetime) -> int:
    """Market-clock seconds before a type that last fired at `fired_at` (ISO) may fire again."""
    if not cooldown_s or fired_at is None:
        return 0
    return max(0, int(cooldown_s - (now - datetime.fromisoformat(fired_at)).total_seconds()))


def cooldowns(state: dict, now: datetime) -> dict[str, int]:
    """Every scanned type's cooldown left at `now`, in seconds (0: free to fire)."""
    fired = state.get("last_fired", {})
    return {name: cooldown_left(EVENT_TYPES[name].cooldown_s, fired.get(name), now) for name in RULES}
