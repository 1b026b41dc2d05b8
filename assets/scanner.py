"""The `scanner` asset: after publish, in the same refresh run, the event scanner (intel/events/scanner.py) over the
module payloads the run just computed, on the market clock.

It reads the warehouse's latest module results of the source in use (the same figures publish serialized, so no
Redis read), the scanner state from the SQL ledger (table scanner_state: cooldowns and previous readings survive a
restart), and the live prediction chain's resolutions since the last one it saw. It appends the events to the event
log (SQL, then the Redis stream), saves the state, evaluates the agents' alerts on the same figures (jobs/alerts.py:
their alert.triggered events are appended too), publishes its status to Redis for GET /api/v1/events/scanner, and
queues the webhook deliveries of every event it appended (jobs/webhooks.py: outbox rows in SQL, then RQ jobs)."""
import time
from datetime import datetime

import orjson
import redis
from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetKey,
    MaterializeResult,
    MetadataValue,
    asset,
)
from sqlalchemy import Connection, Engine, insert, select, update

from assets.resources import MarketResource, RecordsResource, ServingCacheResource, WarehouseResource
from intel.events.scanner import scan
from intel.events.types import EVENT_FIELDS, EVENT_TYPES, URGENCIES
from jobs.alerts import evaluate_alerts
from jobs.webhooks import enqueue_deliveries
from warehouse import keys
from warehouse.events import EventLog, event_id, seq_of
from warehouse.ledger.db import reading
from warehouse.ledger.records import EXPORT_PAGE_MAX, Records, prediction_chain
from warehouse.ledger.tables import scanner_state

NAME = "scanner"
LIVE = prediction_chain("live")
STATE_ROW = 1
CHECKS = {
    "events_match_the_contract": "every emitted event has the contract's fields, a known type, one of the four "
                                 "urgencies and figures naming module, field and value",
    "nothing_after_the_clock": "no event occurred, or rests on data dated, after the market clock",
}



def load_state(engine: Engine) -> dict:
    with reading(engine) as conn:
        body = conn.scalar(select(scanner_state.c.state).where(scanner_state.c.id == STATE_ROW))
    return orjson.loads(body) if body else {}


def save_state(conn: Connection, state: dict, now: datetime) -> None:
    row = {"state": orjson.dumps(state).decode(), "updated_at": now}
    if not conn.execute(update(scanner_state).where(scanner_state.c.id == STATE_ROW).values(**row)).rowcount:
        conn.execute(insert(scanner_state).values(id=STATE_ROW, **row))


def queue_deliveries(log: EventLog, state: dict) -> int:
    """The webhook deliveries of every event after the last one whose deliveries were queued (state
    `delivered_through`): this scan's, and those of a scan that stopped between committing its events and
    queueing them. Queueing twice is harmless (the outbox skips an event already queued to a URL)."""
    after, queued = state.get("delivered_through", 0), 0
    while batch := log.since(event_id(after) if after else None, 1000):
        queued += enqueue_deliveries(batch)
        after = seq_of(batch[-1]["id"])
    state["delivered_through"] = after
    return queued


def resolutions_since(records: Records, after: int | None) -> tuple[list[dict], int]:
    """(resolution records after seq `after`, the chain's last seq read). At the first scan (`after` None) it starts
    from the chain's head: resolutions before the scanner existed are history, not news."""
    if after is None:
        head = records.head(LIVE)
        return [], head["seq"] if head else 0
    found = []
    while page := records.listing(LIVE, after, EXPORT_PAGE_MAX):
        found += [{"seq": r["seq"], "body": orjson.loads(r["body"])} for r in page if r["kind"] == "resolution"]
        after = page[-1]["seq"]
    return found, after


def status(state: dict, detected: dict, seconds: float, source: str, simulated: bool) -> dict:
    """What the route serves; it adds each type's cooldown left at the market clock's now from `last_fired`."""
    return {"scans": state["scans"], "last_scan_at": state["last_scan_at"], "last_scan_seconds": round(seconds, 4),
            "events_emitted": state["events_emitted"], "last_fired": state["last_fired"], "detected": detected,
            "data_source": source, "simulated": simulated}


@asset(name=NAME, group_name="events", deps=[AssetKey("publish")], kinds={"sqlite", "redis"},
       description="Scan the freshly published module payloads for market events (regime change, VIX spike, ...), "
                   "append them to the event log (SQL and the Redis stream) and publish the scanner's status.",
       check_specs=[AssetCheckSpec(name, asset=NAME, description=text) for name, text in CHECKS.items()])
def scanner(context: AssetExecutionContext, market: MarketResource, warehouse: WarehouseResource,
            serving: ServingCacheResource, ledger: RecordsResource) -> MaterializeResult:
    source, simulated, now = market.provider.name, market.provider.simulated, market.now
    with warehouse.open() as store:
        results = store.latest_module_results(source)
    payloads = {name: r.payload for name, r in results.items() if r.as_of <= now.date()}
    records = ledger.records()
    engine = records.engine
    client = redis.Redis.from_url(serving.redis_url, socket_connect_timeout=2, socket_timeout=5)
    try:
        state = load_state(engine)
        resolutions, last_seq = resolutions_since(records, state.get("prediction_seq") if state else None)
        started = time.perf_counter()
        events, state, detected = scan(payloads, state, now, source, simulated, resolutions, last_seq)
        seconds = time.perf_counter() - started
        log = EventLog(engine, client)
        if "delivered_through" not in state:  # the first scan: deliveries start with its own events
            state["delivered_through"] = log.newest_seq()
        # one transaction: the events, the state that says they were emitted, and the alert triggers they report
        # (an alert.triggered for its owner alone, on the same figures), so a crash neither repeats nor loses one
        with engine.begin() as conn:
            appended = log.insert(conn, events)
            appended += log.insert(conn, evaluate_alerts(engine, payloads, now, source, simulated, conn))
            save_state(conn, state, now)
        log.top_up()  # then the Redis stream
        client.set(keys.SCANNER_STATUS, orjson.dumps(status(state, detected, seconds, source, simulated)))
        deliveries = queue_deliveries(log, state)  # the outbox rows, then the RQ jobs (jobs/webhooks.py)
        with engine.begin() as conn:
            save_state(conn, state, now)
    finally:
        client.close()
        engine.dispose()
    context.log.info(f"scanner: scan {state['scans']} in {seconds:.4f} s, {len(appended)} events: "
                     f"{', '.join(e['type'] for e in appended) or 'none'}")
    return MaterializeResult(
        metadata={"scans": state["scans"], "events": len(appended), "webhook_deliveries": deliveries,
                  "scan_seconds": round(seconds, 4),
                  "types": MetadataValue.json(sorted({e["type"] for e in appended})),
                  "modules_read": len(payloads), "event_ids": MetadataValue.json([e["id"] for e in appended])},
        check_results=_checks(appended, now))


def contract_problems(event: dict) -> list[str]:
    problems = [f"missing {f}" for f in EVENT_FIELDS if f not in event]
    if event.get("type") not in EVENT_TYPES:
        problems.append(f"unknown type {event.get('type')}")
    if event.get("urgency") not in URGENCIES:
        problems.append(f"unknown urgency {event.get('urgency')}")
    figures = event.get("figures") or []
    if not figures or any(set(f) != {"module", "field", "value"} for f in figures):
        problems.append("figures must each name module, field and value")
    return problems


def _checks(events: list[dict], now: datetime) -> list[AssetCheckResult]:
    broken = {e["id"]: p for e in events if (p := contract_problems(e))}
    late = [e["id"] for e in events if datetime.fromisoformat(e["occurred_at"]) > now
            or e["data_as_of"] > now.date().isoformat()]
    return [
        AssetCheckResult(check_name="events_match_the_contract", passed=not broken, severity=AssetCheckSeverity.ERROR,
                         metadata={"events": len(events), "broken": MetadataValue.json(broken)}),
        AssetCheckResult(check_name="nothing_after_the_clock", passed=not late, severity=AssetCheckSeverity.ERROR,
                         metadata={"clock": now.isoformat(), "after_the_clock": MetadataValue.json(late)}),
    ]
