"""Webhook subscriptions and the delivery outbox (jobs/webhooks.py sends; this is what must not be lost).

Rules:
- A subscription is one event type and one callback URL; at most MAX_SUBSCRIPTIONS[tier] active ones per agent, and
  one per (event type, URL). Its signing secret is shown once, at subscribe.
- An event becomes one outbox row per target that receives it (DELIVERY_TARGET_KINDS in tables.py, in that order):
  each active subscription of its type whose agent may receive it (a market event for every agent whose effective
  tier allows the type, an `alert.triggered` for the one agent in its `audience`); an `alert.triggered`'s own alert
  callback (signed with the alert's secret); each running alert package subscription of its type at or above its
  `min_urgency`, on its webhook channel (signed with the package secret) and its chat channel (CHAT body,
  unsigned: Slack- and Discord-style incoming webhooks verify no signature). One event reaches one URL of an
  agent once: the first target there takes it (the UNIQUE index is the last line of defence).
- A row carries its whole target (URL, secret, body format) so sending needs no join, and all targets share the
  claims, retries, sweeper and SSRF checks below.
- Each attempt is claimed first (`attempts` goes up by one only if it is still the attempt the job was queued for),
  so two jobs for one attempt never both send, and a worker killed mid-send leaves a pending row whose lease ends:
  the sweeper queues it again. `claim_many` and `record_many` do the same for a batch in one transaction each.
  Receivers may still see a delivery twice (killed after the receiver answered, before the outcome was written):
  at least once, deduplicated by `webhook-id` (the row id).
- Retries stop when the delivery is DISABLE_AFTER old; a subscription whose attempts have all failed for
  DISABLE_AFTER (since `failing_since`, the first failure after its last success) is disabled, says why, and its
  pending deliveries are abandoned (an alert's or a package's rows just stop retrying at DISABLE_AFTER). Wall
  clock, not the market clock: a receiver's outage lasts real hours whatever the speed of a replayed or simulated
  market, and the signature's timestamp must be wall time anyway.
"""
from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson
from sqlalchemy import Engine, and_, bindparam, delete, func, select, update

from intel.events.types import EVENT_TYPES, OWNER_ONLY

from .alert_packages import PackageSubscriptions
from .alerts import Alerts
from .db import reading
from .entries import lock_agent
from .signing_secret import new_secret
from .tables import agents, utcnow, webhook_deliveries, webhook_subscriptions
from .tiers import effective_tier

MAX_SUBSCRIPTIONS = {"free": 5, "premium": 25, "institutional": 100}  # active subscriptions per agent
DISABLE_AFTER = timedelta(hours=24)
KEEP_FINISHED = timedelta(days=30)  # delivered, failed and abandoned rows are pruned after this
CHAT_TEXT_MAX = 2000  # Discord's limit on `content`; Slack's `text` allows more
_CHUNK = 500  # ids per IN list
S, D = webhook_subscriptions.c, webhook_deliveries.c


class SubscriptionLimit(ValueError):
    """The agent already has its tier's maximum of active subscriptions."""


class DuplicateSubscription(ValueError):
    def __init__(self, subscription_id: str):
        super().__init__(f"already subscribed: {subscription_id}")
        self.subscription_id = subscription_id


QUEUE_LEASE = timedelta(minutes=5)  # a queued job has this long to start before the sweeper queues it again
TEST_EVENT_TYPE = "webhook.test"  # never emitted by the scanner: only a test delivery carries it


@dataclass(frozen=True)
class AttemptResult:
    """What one POST came to. `retry_in` None: no retry (delivered, or a final refusal)."""
    delivered: bool
    retry_in: timedelta | None = None
    status_code: int | None = None
    error: str | None = None
    latency_ms: int | None = None


def payload_of(event: dict) -> str:
    """The Standard Webhooks body: {type, timestamp, data}, `data` the event as the SSE stream carries it."""
    return orjson.dumps({"type": event["type"], "timestamp": event["occurred_at"], "data": event}).decode()


def chat_payload_of(event: dict) -> str:
    """A chat channel's body: Slack's `text` and Discord's `content` (each ignores the other's field)."""
    line = f"{event['urgency']} {event['type']}: {event['summary']}"[:CHAT_TEXT_MAX]
    return orjson.dumps({"text": line, "content": line}).decode()


@dataclass(frozen=True)
class Target:
    """Where and how one event is delivered: `kind` one of DELIVERY_TARGET_KINDS, `target_id` the thing of that kind."""
    kind: str
    target_id: str
    agent_pk: int
    url: str
    secret: str | None  # None: unsigned (chat)

    def row(self, event: dict, now: datetime, lease: timedelta) -> dict:
        chat = self.kind == "package_chat"
        return {"id": "msg_" + secrets.token_hex(12), "event_id": event["id"], "event_type": event["type"],
                "subscription_id": self.target_id if self.kind == "subscription" else None,
                "agent_id": self.agent_pk, "target_kind": self.kind, "target_id": self.target_id, "url": self.url,
                "secret": None if chat else self.secret, "body_format": "chat" if chat else "standard_webhooks",
                "payload": chat_payload_of(event) if chat else payload_of(event), "status": "pending",
                "attempts": 0, "next_attempt_at": now + lease, "created_at": now}


class Webhooks:
    def __init__(self, engine: Engine, now: Callable[[], datetime] = utcnow):
        self.engine = engine
        self.now = now

    # --- subscriptions ---

    def subscribe(self, agent_pk: int, tier: str, event_type: str, callback_url: str) -> dict:
        """A new subscription with its secret (the only time it is returned)."""
        row = {"id": "whs_" + secrets.token_hex(12), "agent_id": agent_pk, "event_type": event_type,
               "callback_url": callback_url, "secret": new_secret(), "created_at": self.now()}
        with self.engine.begin() as conn:
            lock_agent(conn, agent_pk)  # two concurrent subscribes cannot both take the last place
            active = conn.execute(select(S.id, S.event_type, S.callback_url)
                                  .where(S.agent_id == agent_pk, S.disabled_at.is_(None))).all()
            for sub_id, type_, url in active:
                if (type_, url) == (event_type, callback_url):
                    raise DuplicateSubscription(sub_id)
            if len(active) >= MAX_SUBSCRIPTIONS[tier]:
                raise SubscriptionLimit(f"{tier} allows {MAX_SUBSCRIPTIONS[tier]} active webhook subscriptions")
            conn.execute(webhook_subscriptions.insert().values(row))
        return {**_public(row | {"disabled_at": None, "disabled_reason": None, "failing_since": None}),
                "secret": row["secret"]}

    def unsubscribe(self, agent_pk: int, subscription_id: str) -> bool:
        """Remove the agent's subscription and its deliveries; False when it has none of that id."""
        with self.engine.begin() as conn:
            owned = conn.scalar(select(S.id).where(S.id == subscription_id, S.agent_id == agent_pk))
            if owned is None:
                return False
            conn.execute(delete(webhook_deliveries).where(D.subscription_id == subscription_id))
            conn.execute(delete(webhook_subscriptions).where(S.id == subscription_id))
        return True

    def forget_agent(self, agent_pk: int) -> int:
        """Remove every subscription and delivery of the agent (its data deleted); how many subscriptions."""
        with self.engine.begin() as conn:
            conn.execute(delete(webhook_deliveries).where(D.agent_id == agent_pk))  # every kind of target
            return conn.execute(delete(webhook_subscriptions).where(S.agent_id == agent_pk)).rowcount

    def subscriptions(self, agent_pk: int) -> list[dict]:
        """The agent's subscriptions (without secrets), disabled ones saying when and why."""
        with reading(self.engine) as conn:
            rows = conn.execute(select(webhook_subscriptions).where(S.agent_id == agent_pk)
                                .order_by(S.created_at, S.id)).mappings().all()
        return [_public(dict(r)) for r in rows]

    def deliveries(self, agent_pk: int, limit: int = 50) -> list[dict]:
        """The agent's deliveries of every kind of target, newest first."""
        query = (select(D.id, D.subscription_id, D.target_kind, D.target_id, D.event_type, D.event_id, D.status,
                        D.attempts, D.last_status, D.last_error, D.latency_ms, D.next_attempt_at, D.created_at,
                        D.delivered_at)
                 .where(D.agent_id == agent_pk)
                 .order_by(D.created_at.desc(), D.id.desc()).limit(limit))
        with reading(self.engine) as conn:
            return [_delivery(dict(r)) for r in conn.execute(query).mappings()]

    # --- the outbox ---

    def test_delivery(self, agent_pk: int, subscription_id: str, lease: timedelta) -> tuple[str, int] | None:
        """A pending delivery of a `webhook.test` event to one of the agent's active subscriptions, so its owner can
        see the receiver take and verify one (delivered and retried as any other); None when the agent has no such
        active subscription. Returns (delivery id, attempts), as `create_deliveries` does."""
        now = self.now()
        with reading(self.engine) as conn:
            sub = conn.execute(select(S.id, S.callback_url, S.secret).where(
                S.id == subscription_id, S.agent_id == agent_pk, S.disabled_at.is_(None))).first()
        if sub is None:
            return None
        event = {"id": "test_" + secrets.token_hex(12), "type": TEST_EVENT_TYPE, "occurred_at": now.isoformat(),
                 "summary": "A test delivery sent from the console; nothing happened in the markets.",
                 "subscription_id": sub.id}
        row = Target("subscription", sub.id, agent_pk, sub.callback_url, sub.secret).row(event, now, lease)
        with self.engine.begin() as conn:
            conn.execute(webhook_deliveries.insert(), [row])
        return row["id"], 0

    def create_deliveries(self, events: Iterable[dict], lease: timedelta) -> list[tuple[str, int]]:
        """One pending row per (event, receiving target), due again after `lease` (the time its job has to start);
        returns (delivery id, attempts) of the new rows. An event already queued to an agent's URL is skipped, so
        calling this twice for the same events is harmless."""
        events = list(events)
        if not events:
            return []
        now = self.now()
        targets = self._targets(events, now)
        with self.engine.begin() as conn:
            ids = [e["id"] for e in events]
            queued = {tuple(r) for start in range(0, len(ids), _CHUNK) for r in conn.execute(
                select(D.agent_id, D.event_id, D.url).where(D.event_id.in_(ids[start:start + _CHUNK])))}
            rows = []
            for event, target in targets:
                if (key := (target.agent_pk, event["id"], target.url)) not in queued:
                    queued.add(key)
                    rows.append(target.row(event, now, lease))
            if rows:
                conn.execute(webhook_deliveries.insert(), rows)
        return [(r["id"], 0) for r in rows]

    def _targets(self, events: list[dict], now: datetime) -> list[tuple[dict, Target]]:
        """Every (event, target) that receives it, in the order of DELIVERY_TARGET_KINDS: where one agent's URL
        is named twice, the first kind takes it."""
        by_type: dict[str, list[dict]] = {}
        for event in events:
            by_type.setdefault(event["type"], []).append(event)
        with reading(self.engine) as conn:
            subs = conn.execute(
                select(S.id, S.event_type, S.agent_id.label("agent_pk"), S.callback_url, S.secret, agents.c.agent_id,
                       agents.c.tier, agents.c.tier_expires_at)
                .join(agents, agents.c.id == S.agent_id)
                .where(S.disabled_at.is_(None), S.event_type.in_(list(by_type)))).all()
        found = [(event, Target("subscription", sub.id, sub.agent_pk, sub.callback_url, sub.secret))
                 for sub in subs for event in by_type[sub.event_type] if _receives(sub, event, now)]
        triggered = [e for e in events if e["type"] == "alert.triggered" and e.get("alert_id")]
        callbacks = Alerts(self.engine).callback_targets([e["alert_id"] for e in triggered]) if triggered else {}
        for event in triggered:
            alert = callbacks.get(event["alert_id"])
            if alert is not None and alert["owner"] == event.get("audience"):  # the owner's alone
                found.append((event, Target("alert", event["alert_id"], alert["agent_pk"], alert["url"],
                                            alert["secret"])))
        packages = PackageSubscriptions(self.engine, now=self.now)
        for event in events:
            for sub in packages.delivery_targets(event):
                if "webhook" in sub["channels"] and sub["callback_url"] and sub["secret"]:
                    found.append((event, Target("package_webhook", str(sub["id"]), sub["agent_pk"],
                                                sub["callback_url"], sub["secret"])))
                if "chat" in sub["channels"] and sub["chat_webhook_url"]:
                    found.append((event, Target("package_chat", str(sub["id"]), sub["agent_pk"],
                                                sub["chat_webhook_url"], None)))
        return found

    def claim(self, delivery_id: str, attempt: int, lease: timedelta) -> dict | None:
        """Start attempt `attempt + 1` of a pending delivery, due again after `lease` should this worker die;
        the delivery with its target's URL (`callback_url`) and secret, or None when another job took it or it is
        over."""
        claimed = self.claim_many([(delivery_id, attempt)], lease)
        return claimed[0] if claimed else None

    def claim_many(self, due: list[tuple[str, int]], lease: timedelta) -> list[dict]:
        """`claim` for a batch of (delivery id, attempt) in one transaction: the rows still pending at the attempt
        named, locked while checked (PostgreSQL; SQLite's BEGIN IMMEDIATE holds every writer off), are claimed
        together, since executemany tells no count per row; the others are another job's or over."""
        wanted, now, mine = dict(due), self.now(), []
        with self.engine.begin() as conn:
            ids = list(wanted)
            for start in range(0, len(ids), _CHUNK):
                rows = conn.execute(select(D.id, D.attempts).where(
                    D.id.in_(ids[start:start + _CHUNK]), D.status == "pending").with_for_update())
                mine += [i for i, attempts in rows if attempts == wanted[i]]
            if not mine:
                return []
            conn.execute(update(webhook_deliveries).where(D.id == bindparam("claimed_id"))
                         .values(attempts=D.attempts + 1, next_attempt_at=now + lease),
                         [{"claimed_id": i} for i in mine])
            claimed = [dict(r) for start in range(0, len(mine), _CHUNK) for r in conn.execute(
                select(D.id, D.payload, D.attempts, D.created_at, D.subscription_id, D.target_kind, D.body_format,
                       D.url.label("callback_url"), D.secret).where(D.id.in_(mine[start:start + _CHUNK]))).mappings()]
        return claimed

    def record(self, delivery_id: str, result: AttemptResult) -> str:
        """Write an attempt's outcome and its subscription's failing state; the delivery's status after it."""
        return self.record_many([(delivery_id, result)])[delivery_id]

    def record_many(self, outcomes: list[tuple[str, AttemptResult]]) -> dict[str, str]:
        """`record` for a batch in one transaction; {delivery id: its status after it}."""
        now, statuses = self.now(), {}
        with self.engine.begin() as conn:
            ids = [i for i, _ in outcomes]
            rows = {r.id: r for start in range(0, len(ids), _CHUNK) for r in conn.execute(
                select(D.id, D.status, D.created_at, D.subscription_id, S.failing_since)
                .outerjoin(webhook_subscriptions, S.id == D.subscription_id)
                .where(D.id.in_(ids[start:start + _CHUNK])))}
            failing: dict[str, datetime | None] = {}  # a subscription's failing_since as this batch leaves it
            for delivery_id, result in outcomes:
                row = rows.get(delivery_id)
                if row is not None and row.subscription_id is not None:
                    failing.setdefault(row.subscription_id, row.failing_since)
                statuses[delivery_id] = _record_one(conn, row, result, now, failing)
        return statuses

    def take_due(self, lease: timedelta, limit: int = 1000) -> list[tuple[str, int]]:
        """Pending deliveries whose time has come (a retry, or a job that never ran or whose worker died), each
        given `lease` before it is due again; (delivery id, attempts). Two sweepers never take the same row: the
        UPDATE re-checks that it is due."""
        now = self.now()
        with self.engine.begin() as conn:
            ids = conn.scalars(select(D.id).where(D.status == "pending", D.next_attempt_at <= now)
                               .order_by(D.next_attempt_at).limit(limit)).all()
            if not ids:
                return []
            taken = conn.execute(update(webhook_deliveries)
                                 .where(D.id.in_(ids), D.status == "pending", D.next_attempt_at <= now)
                                 .values(next_attempt_at=now + lease).returning(D.id, D.attempts)).all()
        return [(i, a) for i, a in taken]

    def prune(self) -> int:
        """Delete finished deliveries older than KEEP_FINISHED; how many."""
        with self.engine.begin() as conn:
            return conn.execute(delete(webhook_deliveries).where(
                D.status != "pending", D.created_at < self.now() - KEEP_FINISHED)).rowcount

    def delivery(self, delivery_id: str) -> dict | None:
        with reading(self.engine) as conn:
            row = conn.execute(select(webhook_deliveries).where(D.id == delivery_id)).mappings().first()
        return dict(row) if row else None

    def subscription(self, subscription_id: str) -> dict | None:
        with reading(self.engine) as conn:
            row = conn.execute(select(webhook_subscriptions).where(S.id == subscription_id)).mappings().first()
        return dict(row) if row else None

    def count_pending(self) -> int:
        with reading(self.engine) as conn:
            return conn.scalar(select(func.count()).where(D.status == "pending"))


def _record_one(conn, row, result: AttemptResult, now: datetime, failing: dict) -> str:
    """One outcome; `failing` holds the batch's view of each subscription's failing_since (updated here)."""
    if row is None or row.status != "pending":  # unsubscribed, cancelled, abandoned or disabled meanwhile
        return row.status if row else "removed"
    if row.subscription_id is not None and failing.get(row.subscription_id) == "disabled":
        return "abandoned"  # disabled earlier in this batch, its pending rows abandoned with it
    seen = {"last_status": result.status_code, "last_error": result.error, "latency_ms": result.latency_ms}
    sub = row.subscription_id
    if result.delivered:
        _set(conn, row.id, status="delivered", delivered_at=now, next_attempt_at=None, **seen)
        if sub is not None:
            failing[sub] = None
            _set_failing_since(conn, sub, None)
        return "delivered"
    if sub is not None:
        failing_since = failing.get(sub) or now
        if now - failing_since >= DISABLE_AFTER:
            _disable(conn, sub, failing_since, now, result)
            _set(conn, row.id, status="failed", next_attempt_at=None, **seen)
            failing[sub] = "disabled"
            return "failed"
        failing[sub] = failing_since
        _set_failing_since(conn, sub, failing_since)
    if result.retry_in is not None and now + result.retry_in - row.created_at < DISABLE_AFTER:
        _set(conn, row.id, next_attempt_at=now + result.retry_in, **seen)
        return "pending"
    _set(conn, row.id, status="failed", next_attempt_at=None, **seen)
    return "failed"


def _receives(sub, event: dict, now: datetime) -> bool:
    if event["type"] in OWNER_ONLY:
        return event.get("audience") == sub.agent_id
    tier = effective_tier(sub.tier, sub.tier_expires_at, now)
    return event.get("audience") is None and EVENT_TYPES[event["type"]].allowed_for(tier)


def _set(conn, delivery_id: str, **values) -> None:
    conn.execute(update(webhook_deliveries).where(D.id == delivery_id).values(**values))


def _set_failing_since(conn, subscription_id: str, since: datetime | None) -> None:
    conn.execute(update(webhook_subscriptions).where(S.id == subscription_id).values(failing_since=since))


def _disable(conn, subscription_id: str, failing_since: datetime, now: datetime, result: AttemptResult) -> None:
    last = f"HTTP {result.status_code}" if result.status_code else (result.error or "an error")
    reason = (f"disabled: every delivery attempt failed from {failing_since.isoformat(timespec='seconds')} to "
              f"{now.isoformat(timespec='seconds')} ({int(DISABLE_AFTER.total_seconds() // 3600)} h without a "
              f"success); the last one got {last}. Subscribe again to resume.")
    conn.execute(update(webhook_subscriptions).where(S.id == subscription_id)
                 .values(disabled_at=now, disabled_reason=reason[:500]))
    conn.execute(update(webhook_deliveries)
                 .where(and_(D.subscription_id == subscription_id, D.status == "pending"))
                 .values(status="abandoned", next_attempt_at=None, last_error="subscription disabled"))


def _public(row: dict) -> dict:
    return {"subscription_id": row["id"], "event_type": row["event_type"], "callback_url": row["callback_url"],
            "created_at": row["created_at"].isoformat(), "active": row["disabled_at"] is None,
            "disabled_at": row["disabled_at"].isoformat() if row["disabled_at"] else None,
            "disabled_reason": row["disabled_reason"],
            "failing_since": row["failing_since"].isoformat() if row["failing_since"] else None}


def _delivery(row: dict) -> dict:
    final = row["status"] != "pending"
    # a retry is only scheduled after an answer (or an error); before that next_attempt_at is a job's lease
    retrying = not final and row["next_attempt_at"] is not None and (row["last_status"] or row["last_error"])
    return {"webhook_id": row["id"], "kind": row["target_kind"], "target_id": row["target_id"],
            "subscription_id": row["subscription_id"], "event_type": row["event_type"],
            "event_id": row["event_id"], "status": row["status"], "final": final, "attempts": row["attempts"],
            "last_status_code": row["last_status"], "last_error": row["last_error"],
            "latency_ms": row["latency_ms"],
            "next_retry_at": row["next_attempt_at"].isoformat() if retrying else None,
            "created_at": row["created_at"].isoformat(),
            "delivered_at": row["delivered_at"].isoformat() if row["delivered_at"] else None}
