"""Evaluating the agents' alerts at one scan: pure, no I/O.

An alert is a dict as the ledger stores it: `alert_id`, `agent_id` (the owner's public id), `name`,
`conditions` ([{field, operator, value}], see alert_fields.py), `logic` (AND or OR), `cooldown` (seconds),
`max_triggers`, `trigger_count`, `last_triggered_at` and `expires_at` (aware datetimes or None).

At the market clock's `now` an alert fires when it has not expired, has fired fewer than `max_triggers` times,
its last trigger is at least `cooldown` seconds back, and its conditions hold (all of them for AND, any for OR)
on the values of this scan (crossings also on the previous scan's). Each field's value is read once per scan,
so the cost is one comparison per condition: 10,000 alerts take milliseconds (bench/alerts.py)."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from intel.events.alert_fields import FIELDS, current_values
from intel.events.types import EVENT_TYPES

ALERT_TYPE = "alert.triggered"


def _ordered(compare):
    return lambda now, before, value: now is not None and compare(now, value)


# (value now, value at the previous scan, the condition's value) -> holds
_HOLDS = {
    ">": _ordered(lambda a, b: a > b), ">=": _ordered(lambda a, b: a >= b),
    "<": _ordered(lambda a, b: a < b), "<=": _ordered(lambda a, b: a <= b),
    "==": _ordered(lambda a, b: a == b), "!=": _ordered(lambda a, b: a != b),
    "crosses_above": lambda now, before, value: now is not None and before is not None and before <= value < now,
    "crosses_below": lambda now, before, value: now is not None and before is not None and before >= value > now,
}


def holds(condition: dict, values: dict, previous: dict) -> bool:
    field = condition["field"]
    return _HOLDS[condition["operator"]](values.get(field), previous.get(field), condition["value"])


def is_live(alert: dict, now: datetime) -> bool:
    """Not expired and not yet at its max_triggers (cooldown aside)."""
    expires = alert.get("expires_at")
    return (expires is None or now < expires) and alert["trigger_count"] < alert["max_triggers"]


def may_fire(alert: dict, now: datetime) -> bool:
    last = alert.get("last_triggered_at")
    return is_live(alert, now) and (last is None or (now - last).total_seconds() >= alert["cooldown"])


def conditions_hold(alert: dict, values: dict, previous: dict) -> bool:
    results = (holds(c, values, previous) for c in alert["conditions"])
    return all(results) if alert["logic"] == "AND" else any(results)


def evaluate(alerts: Iterable[dict], payloads: dict[str, dict], previous_values: dict, now: datetime, *,
             data_source: str, simulated: bool) -> tuple[list[dict], dict]:
    """The `alert.triggered` events of the alerts that fire at `now` (each with the `alert_id` it is for), and
    the field values to compare with at the next scan (a field missing now keeps its earlier value)."""
    values = current_values(payloads)
    triggers = [trigger_event(alert, values, payloads, now, data_source, simulated) for alert in alerts
                if may_fire(alert, now) and conditions_hold(alert, values, previous_values)]
    remembered = {**previous_values, **{k: v for k, v in values.items() if v is not None}}
    return triggers, remembered


def trigger_event(alert: dict, values: dict, payloads: dict, now: datetime, data_source: str,
                  simulated: bool) -> dict:
    """The event an alert's trigger becomes: for its owner only, its figures the values its conditions read."""
    fields = list(dict.fromkeys(c["field"] for c in alert["conditions"]))
    figures = [{"module": FIELDS[f].module, "field": FIELDS[f].path, "value": values[f]} for f in fields
               if values.get(f) is not None]
    dates = [str(payloads[FIELDS[f].module].get("data_as_of") or payloads[FIELDS[f].module].get("as_of"))
             for f in fields if values.get(f) is not None]
    return {"type": ALERT_TYPE, "urgency": EVENT_TYPES[ALERT_TYPE].urgency, "occurred_at": now.isoformat(),
            "data_as_of": max(dates) if dates else None, "summary": summary(alert, values),
            "figures": figures, "simulated": simulated, "data_source": data_source, "audience": alert["agent_id"],
            "alert_id": alert["alert_id"]}


def summary(alert: dict, values: dict) -> str:
    joiner = " and " if alert["logic"] == "AND" else " or "
    parts = [f"{c['field']} {_shown(values.get(c['field']))} {c['operator'].replace('_', ' ')} {_shown(c['value'])}"
             for c in alert["conditions"]]
    number = alert["trigger_count"] + 1
    return (f"Alert '{alert['name']}' triggered ({number} of {alert['max_triggers']}): "
            f"{joiner.join(parts)}.")


def _shown(value) -> str:
    return "unavailable" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
