"""The scanner's alert step: evaluate every live alert on this scan's payloads, record the triggers, and hand back
the `alert.triggered` events for the event log (each for its owner only: `audience` is the owner's agent id).

    events = evaluate_alerts(engine, payloads, clock.now(), provider.name, provider.simulated)
    EventLog(engine, redis).append(events)

A trigger is counted before its event is appended: a scan that dies between the two loses that event rather
than sending it twice at the next scan. Each event carries the `alert_id` it is for, so a delivery finds the
alert's callback URL with `Alerts(engine).callback_for(event["alert_id"])`."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine

from intel.events.alerts import evaluate
from warehouse.ledger.alerts import Alerts


def evaluate_alerts(engine: Engine, payloads: dict[str, dict], now: datetime, data_source: str,
                    simulated: bool, conn=None) -> list[dict]:
    """The events of the alerts that fire at `now` (market clock) on `payloads` ({module: payload}), their
    triggers recorded in `conn`'s transaction when given (the scanner commits the events in the same one, so a
    trigger is never counted without its event, nor its event kept without the count)."""
    store = Alerts(engine)
    live = store.live(now)
    events, values = evaluate(live, payloads, store.previous_values(), now, data_source=data_source,
                              simulated=simulated)
    seen = {a["alert_id"]: a["trigger_count"] for a in live}
    recorded = store.record_scan({e["alert_id"]: seen[e["alert_id"]] for e in events}, values, now, conn)
    return [e for e in events if e["alert_id"] in recorded]
