"""Alert package subscriptions in the ledger, the package history, and who receives a package event.

A subscription runs from its payment for the package's period; subscribing again while it runs (or after it was
cancelled with time left) adds a period after its current end, and takes the new channels. Cancelling stops the
deliveries at once and refunds nothing. Periods are paid time, so `now` is the ledger's clock (wall time, as plans
and tiers), not the market clock. The money is moved by the charging service before `subscribe` is called.

The webhook channel signs its deliveries with a secret made when the subscription first has that channel and
returned that once (`secret`); a renewal keeps it. The deliveries themselves go through the webhook outbox
(warehouse/ledger/webhooks.py), which asks `delivery_targets` who receives an event; cancelling abandons the
subscription's deliveries still pending."""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import orjson
from sqlalchemy import Engine, insert, select, update

from intel.events.packages import PACKAGES, AlertPackage, urgency_at_least
from warehouse.events import event_id

from .db import reading
from .signing_secret import new_secret
from .tables import agents, events, utcnow, webhook_deliveries
from .tables import alert_package_subscriptions as subs


def public(row: dict, now: datetime) -> dict:
    package = PACKAGES[row["package_id"]]
    active = row["cancelled_at"] is None and row["ends_at"] > now
    return {"package_id": row["package_id"], "name": package.name, "tier": package.tier,
            "event_types": list(package.event_types), "delivery_channels": row["delivery_channels"].split(","),
            "callback_url": row["callback_url"], "chat_webhook_url": row["chat_webhook_url"],
            "min_urgency": row["min_urgency"], "active": active, "started_at": row["started_at"].isoformat(),
            "ends_at": row["ends_at"].isoformat(), "periods_paid": row["periods_paid"],
            "cancelled_at": row["cancelled_at"].isoformat() if row["cancelled_at"] else None}


class PackageSubscriptions:
    def __init__(self, engine: Engine, now: Callable[[], datetime] = utcnow):
        self.engine = engine
        self.now = now

    def subscribe(self, agent_pk: int, package: AlertPackage, delivery: dict, reference: str) -> dict:
        """Start or extend the agent's subscription by one period; `delivery` holds delivery_channels (a list),
        callback_url, chat_webhook_url and min_urgency. The answer holds `secret` when one was made now."""

        now, period = self.now(), timedelta(days=package.period_days)
        made = None
        values = {"delivery_channels": ",".join(delivery["delivery_channels"]),
                  "callback_url": delivery.get("callback_url"), "chat_webhook_url": delivery.get("chat_webhook_url"),
                  "min_urgency": delivery["min_urgency"], "cancelled_at": None, "reference": reference}
        with self.engine.begin() as conn:
            row = conn.execute(select(subs).where(subs.c.agent_id == agent_pk, subs.c.package_id == package.package_id)
                               .with_for_update()).mappings().first()
            if (row is None or row["secret"] is None) and "webhook" in delivery["delivery_channels"]:
                made = values["secret"] = new_secret()
            if row is None:
                values |= {"agent_id": agent_pk, "package_id": package.package_id, "started_at": now,
                           "ends_at": now + period, "periods_paid": 1}
                conn.execute(insert(subs), values)
            else:
                running = row["ends_at"] > now
                values |= {"started_at": row["started_at"] if running else now,
                           "ends_at": (row["ends_at"] if running else now) + period,
                           "periods_paid": row["periods_paid"] + 1}
                conn.execute(update(subs).where(subs.c.id == row["id"]).values(values))
                values = {**row, **values}
        return public(values, now) | ({"secret": made} if made else {})

    def unsubscribe(self, agent_pk: int, package_id: str) -> dict | None:
        """Cancel the agent's running subscription; None when none runs."""
        now, d = self.now(), webhook_deliveries.c
        with self.engine.begin() as conn:
            row = conn.execute(update(subs).where(subs.c.agent_id == agent_pk, subs.c.package_id == package_id,
                                                  subs.c.cancelled_at.is_(None), subs.c.ends_at > now)
                               .values(cancelled_at=now).returning(*subs.c)).mappings().first()
            if row is not None:  # deliveries stop at once, those already queued included
                conn.execute(update(webhook_deliveries)
                             .where(d.target_kind.in_(("package_webhook", "package_chat")),
                                    d.target_id == str(row["id"]), d.status == "pending")
                             .values(status="abandoned", next_attempt_at=None, last_error="package cancelled"))
        return public(dict(row), now) if row is not None else None

    def mine(self, agent_pk: int) -> list[dict]:
        now = self.now()
        with reading(self.engine) as conn:
            rows = conn.execute(select(subs).where(subs.c.agent_id == agent_pk).order_by(subs.c.id)).mappings()
            return [public(dict(r), now) for r in rows]

    def history(self, package: AlertPackage, limit: int) -> list[dict]:
        """The package's latest events, newest first: the market events of its types in the event log."""
        query = (select(events.c.seq, events.c.body)
                 .where(events.c.type.in_(package.event_types), events.c.audience.is_(None))
                 .order_by(events.c.seq.desc()).limit(limit))
        with reading(self.engine) as conn:
            return [{"id": event_id(seq), **orjson.loads(body)} for seq, body in conn.execute(query)]

    def delivery_targets(self, event: dict) -> list[dict]:
        """The running subscriptions that receive `event`, as the outbox needs them: `id` (the row id, the
        deliveries' target id), `agent_pk`, `channels`, `callback_url`, `chat_webhook_url`, `secret`."""
        return [{"id": r["id"], "agent_pk": r["agent_id"], "channels": r["delivery_channels"].split(","),
                 "callback_url": r["callback_url"], "chat_webhook_url": r["chat_webhook_url"], "secret": r["secret"]}
                for r in self._receiving(event)]

    def _receiving(self, event: dict) -> list[dict]:
        ids = [p.package_id for p in PACKAGES.values() if event["type"] in p.event_types]
        if not ids or event.get("audience") is not None:
            return []
        query = (select(subs, agents.c.agent_id.label("owner"))
                 .join(agents, agents.c.id == subs.c.agent_id)
                 .where(subs.c.package_id.in_(ids), subs.c.cancelled_at.is_(None), subs.c.ends_at > self.now())
                 .order_by(subs.c.id))
        with reading(self.engine) as conn:
            rows = conn.execute(query).mappings().all()
        return [dict(r) for r in rows if urgency_at_least(event["urgency"], r["min_urgency"])]

    def recipients(self, event: dict) -> list[tuple[dict, list[str]]]:
        """Every running subscription that receives `event` (a package of its type, at or above its
        min_urgency), with the channels to deliver it on; each names its owner (`agent_id`, and `agent_pk` the
        ledger's row id). An agent in two packages of the type is listed once per package."""
        now = self.now()
        return [(public(r, now) | {"agent_id": r["owner"], "agent_pk": r["agent_id"]},
                 r["delivery_channels"].split(",")) for r in self._receiving(event)]


def package_recipients(engine: Engine, event: dict) -> list[tuple[dict, list[str]]]:
    """For the delivery engineer: who receives a package event, and on which channels (see `recipients`)."""
    return PackageSubscriptions(engine).recipients(event)
