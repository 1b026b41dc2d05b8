"""Renderings of one `full` payload: full, compact (flat key-value), prompt (text for LLM injection)
and agent (the full payload plus per-caller deltas, temporal context and follow-up actions). Pure and fast."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

import numpy as np

from intel import econ_calendar

FORMATS = ("full", "compact", "prompt", "agent")
# next publication after the last observation, by cadence (daily: next business day)
NEXT_UPDATE = {"weekly": 7, "monthly": 31, "quarterly": 92}
ENVELOPE_KEYS = ("module", "as_of", "data_as_of", "generated_at", "signals", "summary", "data_sources",
                 "related_modules", "full_data", "methodology", "provenance", "_meta")


def flatten(value, prefix: str = "", out: dict | None = None) -> dict:
    """Dotted keys for nested dicts and lists (`curve.10y`, `alerts.0.pair`); scalars as they are.
    An empty dict or list becomes None so every value stays a scalar."""
    out = {} if out is None else out
    if isinstance(value, dict):
        if not value and prefix:
            out[prefix] = None
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, (list, tuple)):
        if not value:
            out[prefix] = None
        for index, item in enumerate(value):
            flatten(item, f"{prefix}.{index}", out)
    else:
        out[prefix] = value
    return out


def _data(payload: dict) -> dict:
    """Module payloads keep their numbers under `data`; others (the pulse) are their own data."""
    if "data" in payload:
        return payload["data"]
    return {k: v for k, v in payload.items() if k not in ENVELOPE_KEYS}


def _top_signal(payload: dict) -> dict | None:
    signals = payload.get("signals")
    if isinstance(signals, list) and signals:
        return max(signals, key=lambda s: s.get("confidence") or 0)
    return None


def _figure(value) -> str:
    if isinstance(value, bool) or value is None:
        return "n/a" if value is None else str(value).lower()
    return str(value)


def prompt_text(payload: dict) -> str:
    """Pre-formatted text for LLM injection: the same figures as the full payload, verbatim."""
    lines = [f"## {payload.get('module', 'pulse')} (as of {payload.get('as_of')})", data_date_line(payload)]
    if payload.get("summary"):
        lines.append(payload["summary"])
    signals = payload.get("signals")
    if isinstance(signals, list) and signals:
        lines.append("Signals:")
        lines += [f"- {s['name']}: {s['direction']} (confidence {s['confidence']}, urgency {s['urgency']}): "
                  f"{s['reason']}" for s in signals]
    lines.append("Key figures:")
    lines += [f"- {key}: {_figure(value)}" for key, value in flatten(_data(payload)).items()
              if not isinstance(value, list)]
    if payload.get("methodology"):
        lines.append(f"Method: {payload['methodology']}")
    sources = payload.get("data_sources") or {}
    if sources.get("series"):
        lines.append("Sources: " + ", ".join(f"{s['id']} to {s['last_observation']}"
                                             + (" (stale)" if s.get("stale") else "") for s in sources["series"]))
    if sources.get("missing"):
        lines.append("Missing: " + ", ".join(sources["missing"]))
    return "\n".join(lines)


def data_date_line(payload: dict) -> str:
    """The date the figures describe, beside the clock's: a close dated the day before is not today's."""
    line = f"Data as of {payload.get('data_as_of')} (latest observation the figures rest on)"
    lasts = {s["last_observation"] for s in (payload.get("data_sources") or {}).get("series", [])}
    if len(lasts) > 1:
        line += "; inputs end on different dates, listed under Sources"
    return line + "."


def compact(payload: dict) -> dict:
    out = {"module": payload.get("module", "pulse"), "as_of": payload.get("as_of"),
           "data_as_of": payload.get("data_as_of")}
    top = _top_signal(payload)
    if top:
        out["signal_direction"], out["signal_confidence"] = top["direction"], top["confidence"]
    for key, value in flatten(_data(payload)).items():
        out[key] = value
    return out


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def deltas(current: dict, previous: dict | None) -> dict:
    """Per numeric key: old, new and change since the data dict this agent last saw."""
    if previous is None:
        return {"first_query": True}
    now_flat, before = flatten(current), flatten(previous)
    changed = {}
    for key, new in now_flat.items():
        old = before.get(key)
        if _is_number(new) and _is_number(old) and new != old:
            changed[key] = {"old": old, "new": new, "change": round(new - old, 6)}
    return {"first_query": False, "changed": changed,
            "unchanged_count": sum(1 for k, v in now_flat.items() if _is_number(v) and before.get(k) == v),
            "new_keys": [k for k in now_flat if k not in before],
            "removed_keys": [k for k in before if k not in now_flat]}


def _next_update(last: date, cadence: str) -> date:
    if cadence in NEXT_UPDATE:
        return last + timedelta(days=NEXT_UPDATE[cadence])
    return np.busday_offset(np.datetime64(last, "D"), 1, roll="forward").astype(date)


def temporal_context(payload: dict, now: datetime | None) -> dict:
    now = now or datetime.now(UTC)
    today = now.date()
    ages, upcoming = {}, {}
    for series in (payload.get("data_sources") or {}).get("series", []):
        last = date.fromisoformat(series["last_observation"])
        ages[series["id"]] = (today - last).days
        nxt = _next_update(last, series.get("cadence", "daily"))
        upcoming[series["id"]] = nxt.isoformat() if nxt >= today else f"overdue since {nxt.isoformat()}"
    data_as_of = payload.get("data_as_of")
    return {"as_of": payload.get("as_of"), "data_as_of": data_as_of,
            "data_age_days_latest": (today - date.fromisoformat(data_as_of)).days if data_as_of else None,
            "now": now.isoformat(), "data_age_days": ages,
            "next_expected_update": upcoming, "upcoming_events": relevant_events(payload, today)}


@lru_cache(maxsize=8)
def _two_weeks_of_events(today: date) -> tuple[dict, ...]:
    # built once per day, not per query: the agent format is rendered on the request path
    return tuple(econ_calendar.upcoming(today, 14))


def relevant_events(payload: dict, today: date) -> list[dict]:
    """Calendar events that bear on this payload: releases of the series it read within two weeks, and
    any high-importance release (FOMC, CPI, payrolls...) within one week, since those move every market."""
    used = {s["id"] for s in (payload.get("data_sources") or {}).get("series", [])}
    out = []
    for event in _two_weeks_of_events(today):
        own = bool(used & set(event["series_ids"]))
        days = (date.fromisoformat(event["date"]) - today).days
        if own or (event["importance"] == "high" and days <= 7):
            out.append({"event": event["event"], "date": event["date"], "time_et": event["time_et"],
                        "importance": event["importance"], "days_until": days,
                        "why": "releases an input of this module" if own else "high-importance release"})
    return out


# Whose last query the agent format's deltas compare with.
DELTA_BASES = {
    "agent": "your agent's last query of this module",
    "client_address": "the last query of this module from your client address (no API key was sent; callers "
                      "behind one address share it, register for deltas of your own)",
}


def agent(payload: dict, previous: dict | None, now: datetime | None, deltas_for: str = "agent") -> dict:
    """The full payload plus what an agent acts on: deltas since the caller's last query, temporal context
    and follow-up actions (the signals are the payload's own)."""
    return {**payload, "signals": payload.get("signals", []),
            "deltas": {**deltas(_data(payload), previous), "since": DELTA_BASES[deltas_for]},
            "temporal_context": temporal_context(payload, now),
            "follow_up_actions": [{"action": f"query {r['name']}", "module": r["name"],
                                   "path": f"/api/v1/intelligence/{r['name']}", "reason": r["reason"]}
                                  for r in payload.get("related_modules", [])]}


def render(payload: dict, fmt: str = "full", include_prompt: bool = False, previous: dict | None = None,
           now: datetime | None = None, deltas_for: str = "agent") -> dict:
    if fmt == "full":
        out = dict(payload)
    elif fmt == "compact":
        out = compact(payload)
    elif fmt == "prompt":
        return {"module": payload.get("module", "pulse"), "as_of": payload.get("as_of"),
                "data_as_of": payload.get("data_as_of"), "prompt": prompt_text(payload)}
    elif fmt == "agent":
        out = agent(payload, previous, now, deltas_for)
    else:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if include_prompt:
        out["prompt"] = prompt_text(payload)
    return out
