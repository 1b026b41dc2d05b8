"""Alerts and webhooks: the agent's alerts (a form built from the alert fields), its webhook subscriptions, and the
latest deliveries to either, with their status and retries. The same rules as the API's routes: the same field and
operator checks, the same URL checks (https on a public address), the same limits per tier."""
from __future__ import annotations

import asyncio

from pydantic import ValidationError

from api.console.pages import BASE, FormPage
from api.resources.alerts import url_problem
from api.schemas import AlertSubscribeBody
from intel.events.alert_fields import FIELDS, OPERATOR_TEXT, OPERATORS, condition_problems
from intel.events.types import EVENT_TYPES, types_for
from warehouse.ledger.alerts import ALERT_LIMITS, AlertLimitReached, Alerts
from warehouse.ledger.webhooks import QUEUE_LEASE, DuplicateSubscription, SubscriptionLimit, Webhooks

DELIVERIES_SHOWN = 20


class AlertsPage(FormPage):
    """GET: the page. POST: create or delete an alert, subscribe or unsubscribe a webhook (`action`)."""

    def __init__(self, services, sessions):
        super().__init__(services, sessions)
        self.alerts, self.webhooks = Alerts(services.engine), Webhooks(services.engine)

    async def show(self, resp, visitor, status: int = 200, **values) -> None:
        agent = visitor.agent
        mine = await asyncio.to_thread(self.alerts.mine, agent["id"], self.services.clock.now())
        subscriptions = await asyncio.to_thread(self.webhooks.subscriptions, agent["id"])
        deliveries = await asyncio.to_thread(self.webhooks.deliveries, agent["id"], DELIVERIES_SHOWN)
        self.render(resp, "alerts.html", status, visitor, alerts=mine, subscriptions=subscriptions,
                    deliveries=deliveries, fields=list(FIELDS.values()), operators=OPERATORS,
                    operator_text=OPERATOR_TEXT, event_types=types_for(agent["tier"]),
                    alert_limit=ALERT_LIMITS[agent["tier"]], **{"shown_secret": None, **values})

    async def on_post(self, req, resp):
        posted = await self.posted(req, resp)
        if posted is None:
            return
        visitor, form = posted
        action = {"create": self.create, "delete": self.delete, "subscribe": self.subscribe,
                  "unsubscribe": self.unsubscribe, "test": self.test, "pause": self.pause,
                  "resume": self.resume}.get(form.get("action", ""))
        if action is None:
            return await self.show(resp, visitor, 422, error="Unknown action.")
        problem, secret = await action(visitor.agent, form)
        if problem is not None:
            return await self.show(resp, visitor, problem[0], error=problem[1])
        if secret is not None:  # shown this once, on the answer to the form: never in a URL
            return await self.show(resp, visitor, shown_secret=secret)
        self.redirect(resp, f"{BASE}/alerts")

    async def create(self, agent: dict, form: dict) -> tuple:
        try:
            body = AlertSubscribeBody(
                name=form.get("name", "").strip(), logic="AND",
                conditions=[{"field": form.get("field", ""), "operator": form.get("operator", ""),
                             "value": value_of(form.get("value", ""))}],
                cooldown=int(form.get("cooldown") or 3600), max_triggers=int(form.get("max_triggers") or 10),
                callback_url=form.get("callback_url", "").strip() or None)
        except (ValidationError, ValueError) as exc:
            return (422, f"That alert cannot be made: {first_error(exc)}"), None
        alert = body.model_dump()
        problems = condition_problems(alert["conditions"][0])
        if problems:
            return (422, f"That alert cannot be made: {problems[0][1]}"), None
        if body.callback_url and (problem := await url_problem(body.callback_url,
                                                               self.services.settings.webhook_allow_private)):
            return (422, problem), None
        try:
            made = await asyncio.to_thread(self.alerts.create, agent["id"], agent["tier"], alert,
                                           self.services.clock.now())
        except AlertLimitReached as exc:
            return (409, str(exc)), None
        return None, made.get("secret")

    async def delete(self, agent: dict, form: dict) -> tuple:
        if not await asyncio.to_thread(self.alerts.delete, agent["id"], form.get("alert_id", "")[:40]):
            return (404, "You have no such alert."), None
        return None, None

    async def pause(self, agent: dict, form: dict, paused: bool = True) -> tuple:
        done = await asyncio.to_thread(self.alerts.set_paused, agent["id"], form.get("alert_id", "")[:40], paused,
                                       self.services.clock.now())
        return ((404, "You have no such alert."), None) if not done else (None, None)

    async def resume(self, agent: dict, form: dict) -> tuple:
        return await self.pause(agent, form, paused=False)

    async def subscribe(self, agent: dict, form: dict) -> tuple:
        event_type, url = form.get("event_type", ""), form.get("callback_url", "").strip()
        if event_type not in EVENT_TYPES or event_type not in types_for(agent["tier"]):
            return (422, "Choose one of the event types listed."), None
        if problem := await url_problem(url, self.services.settings.webhook_allow_private):
            return (422, problem), None
        try:
            made = await asyncio.to_thread(self.webhooks.subscribe, agent["id"], agent["tier"], event_type, url)
        except DuplicateSubscription:
            return (409, "This event type already goes to this URL."), None
        except SubscriptionLimit as exc:
            return (403, str(exc)), None
        return None, made["secret"]

    async def unsubscribe(self, agent: dict, form: dict) -> tuple:
        if not await asyncio.to_thread(self.webhooks.unsubscribe, agent["id"], form.get("subscription_id", "")[:40]):
            return (404, "You have no such subscription."), None
        return None, None

    async def test(self, agent: dict, form: dict) -> tuple:
        """A `webhook.test` delivery to one of the agent's subscriptions, queued for the workers now."""
        due = await asyncio.to_thread(self.webhooks.test_delivery, agent["id"], form.get("subscription_id", "")[:40],
                                      QUEUE_LEASE)
        if due is None:
            return (404, "You have no such active subscription."), None
        # by name: the API does not import the sender; a job not started within the lease is queued again by the
        # sweeper, as any delivery
        await asyncio.to_thread(self.services.jobs.enqueue, "jobs.webhooks.deliver_batch", [due], result_ttl=0,
                                description="webhooks: a test delivery")
        return None, None


def value_of(text: str):
    """A condition's value as typed: a number when it reads as one, else the text (a state's name)."""
    text = text.strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if number.is_integer() and "." not in text else number


def first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors(include_url=False)[0]
        return f"{'.'.join(str(part) for part in error['loc'])}: {error['msg']}"
    return "cooldown and max triggers are whole numbers"
