"""Webhooks: subscribe one event type to a callback URL, unsubscribe, and the record of deliveries.
(GET /api/v1/webhooks/events, the list of event types, is in the events area.)"""
from __future__ import annotations

import asyncio

from api import response_docs_routes as r
from api.errors import APIError, invalid, tier_required
from api.middleware import require_agent
from api.schemas import WebhookDeliveriesQuery, WebhookSubscribeBody, WebhookUnsubscribeQuery
from api.spec import Documented, api_spec
from intel.events.types import EVENT_TYPES
from jobs.webhooks import BACKOFF_FIRST, BACKOFF_MAX, BODY_CAP
from marketintel.ssrf import RefusedURL, checked_target
from warehouse.ledger.webhooks import (
    DISABLE_AFTER,
    MAX_SUBSCRIPTIONS,
    DuplicateSubscription,
    SubscriptionLimit,
    Webhooks,
)

_HOURS = int(DISABLE_AFTER.total_seconds() // 3600)
SIGNING = {
    "scheme": "Standard Webhooks (https://www.standardwebhooks.com), v1 HMAC-SHA256",
    "headers": ["webhook-id", "webhook-timestamp", "webhook-signature"],
    "verify": "standardwebhooks.Webhook(secret).verify(body, headers); reject timestamps over 5 minutes old",
    "deduplicate": "by webhook-id: the same on every attempt of one delivery; delivery is at least once",
    "body": '{"type": <event type>, "timestamp": <occurred_at>, "data": <the event, as the SSE stream carries it>}',
}
DELIVERY_POLICY = (
    f"Each event is POSTed to your URL with a {{timeout}} s timeout per phase; redirects are not followed and at "
    f"most {BODY_CAP} bytes of your answer are read. 2xx is delivered. Timeouts, connection errors, 408, 429 and 5xx "
    f"are retried: after your Retry-After when you send one, else after {int(BACKOFF_FIRST.total_seconds())} s "
    f"doubling per attempt up to {int(BACKOFF_MAX.total_seconds() // 60)} min, for at most {_HOURS} h. Other "
    f"statuses are final. A subscription whose attempts all fail for {_HOURS} h (wall clock) is disabled, says so "
    "in `subscriptions` here with the reason, and its pending deliveries are abandoned; subscribe again to resume.")


class WebhookSubscribeResource:
    def __init__(self, webhooks: Webhooks, allow_private: bool, timeout_s: float):
        self.webhooks, self.allow_private, self.timeout_s = webhooks, allow_private, timeout_s

    @api_spec.validate(json=WebhookSubscribeBody, tags=["webhooks"],
                       resp=Documented("HTTP_401", "HTTP_403", "HTTP_409", "HTTP_422", HTTP_200=r.WebhookSubscribed))
    async def on_post(self, req, resp):
        """Subscribe one event type to a callback URL. The answer carries the subscription id and its signing
        secret (`whsec_...`), shown this once: keep it to verify deliveries. 422 for an unknown event type or a
        refused URL (with the reason: https only, and the host must resolve to public addresses), 403 when your
        tier may not receive the type (naming the tier needed) or holds its maximum of active subscriptions
        (free 5, premium 25, institutional 100), 409 when this type already goes to this URL."""
        agent = require_agent(req)
        body: WebhookSubscribeBody = req.context.json
        event_type = EVENT_TYPES.get(body.event_type)
        if event_type is None:
            raise invalid(["body", "event_type"], f"unknown event type '{body.event_type}'; the list is at "
                          "GET /api/v1/webhooks/events", "enum")
        if not event_type.allowed_for(agent["tier"]):
            raise tier_required(f"{event_type.name} needs the {event_type.min_tier} tier or higher.", agent["tier"],
                                event_type.min_tier)
        try:
            await asyncio.to_thread(checked_target, body.callback_url, self.allow_private)  # DNS: off the loop
        except RefusedURL as ex:
            raise invalid(["body", "callback_url"], f"callback URL refused: {ex}") from None
        try:
            sub = await asyncio.to_thread(self.webhooks.subscribe, agent["id"], agent["tier"], event_type.name,
                                          body.callback_url)
        except DuplicateSubscription as ex:
            raise APIError(409, "already_subscribed", "This event type already goes to this URL.",
                           subscription_id=ex.subscription_id) from None
        except SubscriptionLimit as ex:
            raise APIError(403, "subscription_limit", str(ex), tier=agent["tier"], upgrade="/api/v1/agents/upgrade",
                           max_subscriptions=MAX_SUBSCRIPTIONS[agent["tier"]]) from None
        resp.media = {**sub, "secret_shown_once": True, "signing": SIGNING,
                      "delivery": DELIVERY_POLICY.format(timeout=f"{self.timeout_s:g}"),
                      "unsubscribe": f"DELETE /api/v1/webhooks/unsubscribe?subscription_id={sub['subscription_id']}"}


class WebhookUnsubscribeResource:
    def __init__(self, webhooks: Webhooks):
        self.webhooks = webhooks

    @api_spec.validate(query=WebhookUnsubscribeQuery, tags=["webhooks"],
                       resp=Documented("HTTP_401", "HTTP_404", "HTTP_422", HTTP_200=r.WebhookUnsubscribed))
    async def on_delete(self, req, resp):
        """Remove a subscription, named by the query parameter `subscription_id` (the id POST
        /api/v1/webhooks/subscribe returned), with its pending and past deliveries. 404 when you have no
        subscription of that id."""
        agent = require_agent(req)
        subscription_id = req.context.query.subscription_id
        if not await asyncio.to_thread(self.webhooks.unsubscribe, agent["id"], subscription_id):
            raise APIError(404, "unknown_subscription", f"You have no webhook subscription '{subscription_id}'.")
        resp.media = {"unsubscribed": True, "subscription_id": subscription_id}


class WebhookDeliveriesResource:
    def __init__(self, webhooks: Webhooks, timeout_s: float):
        self.webhooks, self.timeout_s = webhooks, timeout_s

    @api_spec.validate(query=WebhookDeliveriesQuery, tags=["webhooks"],
                       resp=Documented("HTTP_401", "HTTP_422", HTTP_200=r.WebhookDeliveries))
    async def on_get(self, req, resp):
        """Your recent deliveries, newest first (`limit` 1-200, default 50), to every kind of target: `kind`
        `subscription` (a webhook subscription), `alert` (an alert's callback_url), `package_webhook` or
        `package_chat` (an alert package's channels), with `target_id` naming it. Each has its `webhook_id`, event id
        and type, `attempts`, `last_status_code`, `latency_ms` of the last attempt, `next_retry_at` while a retry
        is scheduled, and `status`, final once `delivered`, `failed` or `abandoned`. Also your subscriptions,
        each `active` or disabled with when and why."""
        agent = require_agent(req)
        limit = req.context.query.limit
        deliveries = await asyncio.to_thread(self.webhooks.deliveries, agent["id"], limit)
        subscriptions = await asyncio.to_thread(self.webhooks.subscriptions, agent["id"])
        resp.media = {"deliveries": deliveries, "count": len(deliveries), "limit": limit,
                      "subscriptions": subscriptions, "delivery": DELIVERY_POLICY.format(timeout=f"{self.timeout_s:g}")}
