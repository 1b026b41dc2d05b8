"""Agents' alerts in the ledger: create (within the tier's limit), list, delete (the owner's own), the live alerts
a scan evaluates, and recording a scan's triggers with the field values the next scan's crossings compare with.

Limits (documented at POST /api/v1/alerts/subscribe): live alerts per agent by tier, ALERT_LIMITS. A live alert
has not expired and has fired fewer than its max_triggers times; spent and expired alerts stay listed (with their
status) until deleted, but do not count. Times are the market clock's, given by the caller.

An alert with a callback URL gets a Standard Webhooks signing secret, returned once by `create`; its triggers are
delivered through the webhook outbox (warehouse/ledger/webhooks.py), which finds the URL and the secret with
`callback_targets`. Deleting an alert abandons its deliveries still pending."""
from __future__ import annotations

import secrets
from datetime import datetime, timedelta

import orjson
from sqlalchemy import Engine, and_, bindparam, delete, func, insert, or_, select, update

from .db import reading
from .entries import lock_agent
from .signing_secret import new_secret
from .tables import agents, alert_field_values, alerts, webhook_deliveries

ALERT_LIMITS = {"free": 5, "premium": 50, "institutional": 500}
_CHUNK = 1000  # ids per IN list, well within every backend's limit on bound parameters


class AlertLimitReached(Exception):
    def __init__(self, tier: str, limit: int):
        by_tier = ", ".join(f"{t} {n}" for t, n in ALERT_LIMITS.items())
        super().__init__(f"The {tier} tier keeps at most {limit} live alerts ({by_tier}); delete one, or wait "
                         "for one to expire or reach its max_triggers.")
        self.tier, self.limit = tier, limit


def _live(now: datetime):
    return and_(or_(alerts.c.expires_at.is_(None), alerts.c.expires_at > now),
                alerts.c.trigger_count < alerts.c.max_triggers)


def status_of(row: dict, now: datetime) -> str:
    if row["trigger_count"] >= row["max_triggers"]:
        return "exhausted"
    if row["expires_at"] is not None and row["expires_at"] <= now:
        return "expired"
    if row.get("paused_at") is not None:
        return "paused"
    return "active"


def public(row: dict, now: datetime) -> dict:
    """An alert as its owner sees it (GET /api/v1/alerts)."""
    expires_in = int((row["expires_at"] - row["created_at"]).total_seconds()) if row["expires_at"] else 0
    return {"alert_id": row["alert_id"], "name": row["name"], "conditions": orjson.loads(row["conditions"]),
            "logic": row["logic"], "cooldown": row["cooldown_s"], "max_triggers": row["max_triggers"],
            "expires_in_seconds": expires_in, "callback_url": row["callback_url"],
            "trigger_count": row["trigger_count"], "status": status_of(row, now),
            "created_at": row["created_at"].isoformat(), "expires_at": _iso(row["expires_at"]),
            "last_triggered_at": _iso(row["last_triggered_at"])}


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


class Alerts:
    def __init__(self, engine: Engine):
        self.engine = engine

    def create(self, agent_pk: int, tier: str, alert: dict, now: datetime) -> dict:
        """Store a validated alert (name, conditions, logic, cooldown, max_triggers, expires_in_seconds,
        callback_url); AlertLimitReached when the tier's live alerts are all taken. With a callback URL, the
        answer also holds `secret`, the signing secret of its deliveries: the only time it is returned."""

        limit = ALERT_LIMITS[tier]
        expires = now + timedelta(seconds=alert["expires_in_seconds"]) if alert["expires_in_seconds"] else None
        row = {"alert_id": "al_" + secrets.token_hex(12), "agent_id": agent_pk, "name": alert["name"],
               "conditions": orjson.dumps(alert["conditions"]).decode(), "logic": alert["logic"],
               "cooldown_s": alert["cooldown"], "max_triggers": alert["max_triggers"], "trigger_count": 0,
               "last_triggered_at": None, "expires_at": expires, "callback_url": alert.get("callback_url"),
               "secret": new_secret() if alert.get("callback_url") else None, "created_at": now}
        with self.engine.begin() as conn:
            lock_agent(conn, agent_pk)  # two creations at once cannot both take the last place
            live = conn.scalar(select(func.count()).select_from(alerts).where(alerts.c.agent_id == agent_pk,
                                                                              _live(now)))
            if live >= limit:
                raise AlertLimitReached(tier, limit)
            conn.execute(insert(alerts), row)
        return public(row, now) | ({"secret": row["secret"]} if row["secret"] else {})

    def mine(self, agent_pk: int, now: datetime) -> list[dict]:
        with reading(self.engine) as conn:
            rows = conn.execute(select(alerts).where(alerts.c.agent_id == agent_pk).order_by(alerts.c.id)).mappings()
            return [public(dict(r), now) for r in rows]

    def delete(self, agent_pk: int, alert_id: str) -> bool:
        """Remove the agent's own alert; False when it has none of that id (another agent's is not its own)."""
        d = webhook_deliveries.c
        with self.engine.begin() as conn:
            gone = conn.execute(delete(alerts).where(alerts.c.alert_id == alert_id, alerts.c.agent_id == agent_pk))
            if gone.rowcount != 1:
                return False
            conn.execute(update(webhook_deliveries)  # its triggers stop reaching the callback with the alert
                         .where(d.target_kind == "alert", d.target_id == alert_id, d.status == "pending")
                         .values(status="abandoned", next_attempt_at=None, last_error="alert deleted"))
            return True

    def set_paused(self, agent_pk: int, alert_id: str, paused: bool, now: datetime) -> bool:
        """Pause the agent's own alert (not evaluated until resumed) or resume it; False when it has none of that
        id. A paused alert keeps its place among the agent's live alerts, so resuming never passes the limit."""
        with self.engine.begin() as conn:
            done = conn.execute(update(alerts).where(alerts.c.alert_id == alert_id, alerts.c.agent_id == agent_pk)
                                .values(paused_at=now if paused else None))
            return done.rowcount == 1

    def live(self, now: datetime) -> list[dict]:
        """Every live alert that is not paused, with its owner's public id, as intel/events/alerts.py evaluates
        them."""
        c = alerts.c
        query = (select(c.alert_id, agents.c.agent_id, c.name, c.conditions, c.logic, c.cooldown_s, c.max_triggers,
                        c.trigger_count, c.last_triggered_at, c.expires_at)
                 .join(agents, agents.c.id == c.agent_id).where(_live(now), c.paused_at.is_(None)).order_by(c.id))
        with reading(self.engine) as conn:
            rows = conn.execute(query).all()
        return [{"alert_id": r.alert_id, "agent_id": r.agent_id, "name": r.name,
                 "conditions": orjson.loads(r.conditions), "logic": r.logic, "cooldown": r.cooldown_s,
                 "max_triggers": r.max_triggers, "trigger_count": r.trigger_count,
                 "last_triggered_at": r.last_triggered_at, "expires_at": r.expires_at} for r in rows]

    def previous_values(self) -> dict:
        with reading(self.engine) as conn:
            return {f: orjson.loads(v) for f, v in conn.execute(select(alert_field_values.c.field,
                                                                       alert_field_values.c.value))}

    def record_scan(self, fired: dict[str, int], values: dict, now: datetime, conn=None) -> set[str]:
        """Count each fired alert's trigger ({alert_id: the trigger_count the scan saw}) and keep this scan's
        field values, in one transaction (the caller's `conn`, where the triggers' events commit with them, or
        one of its own); returns the alert ids whose trigger was recorded. The guard on the count seen means a
        trigger is recorded once even if two scans overlap, never past max_triggers."""
        if conn is None:
            with self.engine.begin() as own:
                return self.record_scan(fired, values, now, own)
        c = alerts.c
        guarded = (update(alerts).where(c.alert_id == bindparam("fired_id"), c.trigger_count == bindparam("seen"),
                                        c.trigger_count < c.max_triggers)
                   .values(trigger_count=c.trigger_count + 1, last_triggered_at=now))
        recorded = self._still_as_seen(conn, fired)
        if recorded:  # one statement for all (executemany): thousands of triggers cost milliseconds
            conn.execute(guarded, [{"fired_id": a, "seen": fired[a]} for a in recorded])
        conn.execute(delete(alert_field_values))
        if values:
            conn.execute(insert(alert_field_values), [{"field": f, "value": orjson.dumps(v).decode(),
                                                       "scanned_at": now} for f, v in values.items()])
        return recorded

    @staticmethod
    def _still_as_seen(conn, fired: dict[str, int]) -> set[str]:
        """The fired alerts whose count is still the one the scan saw (and below max), their rows locked until
        the transaction ends (PostgreSQL; SQLite's BEGIN IMMEDIATE already holds every writer off): exactly the
        rows the guarded update will change, since executemany tells no count per row."""
        c, ids, found = alerts.c, list(fired), set()
        for start in range(0, len(ids), _CHUNK):
            rows = conn.execute(select(c.alert_id, c.trigger_count).where(
                c.alert_id.in_(ids[start:start + _CHUNK]), c.trigger_count < c.max_triggers).with_for_update())
            found |= {a for a, count in rows if count == fired[a]}
        return found

    def callback_targets(self, alert_ids: list[str]) -> dict[str, dict]:
        """{alert_id: {url, secret, agent_pk, owner}} of the alerts among `alert_ids` that have a callback URL
        and a secret (an alert made before secrets existed has none: its triggers reach SSE only)."""
        c, found = alerts.c, {}
        with reading(self.engine) as conn:
            for start in range(0, len(alert_ids), _CHUNK):
                query = (select(c.alert_id, c.callback_url, c.secret, c.agent_id, agents.c.agent_id.label("owner"))
                         .join(agents, agents.c.id == c.agent_id)
                         .where(c.alert_id.in_(alert_ids[start:start + _CHUNK]), c.callback_url.is_not(None),
                                c.secret.is_not(None)))
                found |= {r.alert_id: {"url": r.callback_url, "secret": r.secret, "agent_pk": r.agent_id,
                                       "owner": r.owner} for r in conn.execute(query)}
        return found

    def callback_for(self, alert_id: str) -> str | None:
        """The callback URL an alert's triggers are also delivered to (None: SSE only, or no such alert)."""
        with reading(self.engine) as conn:
            return conn.scalar(select(alerts.c.callback_url).where(alerts.c.alert_id == alert_id))
