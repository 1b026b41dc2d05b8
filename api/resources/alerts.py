"""Alerts: subscribe, list, delete, and the fields and operators conditions may use. A key is needed for each.
The rules live in intel/events (fields, operators, evaluation) and warehouse/ledger/alerts.py (storage, limits);
the scanner evaluates every live alert at each scan (jobs/alerts.py). Docstrings here are the OpenAPI text."""
from __future__ import annotations

import asyncio

import orjson

from api import response_docs_routes as r
from api.errors import APIError, invalid
from api.middleware import require_agent
from api.resources.webhooks import SIGNING
from api.schemas import AlertSubscribeBody
from api.services import Services
from api.spec import Documented, api_spec
from api.text_fields import is_safe_line
from intel.events.alert_fields import FIELDS, OPERATOR_TEXT, OPERATORS, condition_problems, value_of
from marketintel.ssrf import RefusedURL, checked_target
from warehouse import keys
from warehouse.ledger.alerts import ALERT_LIMITS, AlertLimitReached, Alerts

LIMITS_TEXT = ", ".join(f"{tier} {n}" for tier, n in ALERT_LIMITS.items())


async def url_problem(url: str, allow_private: bool) -> str | None:
    """Why a callback URL is refused (the webhooks' SSRF rules: https on a public address, resolved now and
    again at each delivery), or None."""
    try:
        await asyncio.to_thread(checked_target, url, allow_private)  # DNS: off the loop
    except RefusedURL as ex:
        return f"callback URL refused: {ex}"
    return None


def check_conditions(conditions: list[dict]) -> None:
    """422 at the first condition naming an unknown field or operator, or a value of the wrong type."""
    for n, condition in enumerate(conditions):
        for key, message in condition_problems(condition):
            raise invalid(["body", "conditions", n, key], message, "value_error")


class AlertSubscribeResource:
    def __init__(self, services: Services, alerts: Alerts):
        self.services, self.alerts = services, alerts

    @api_spec.validate(json=AlertSubscribeBody, tags=["alerts"],
                       resp=Documented("HTTP_401", "HTTP_409", "HTTP_422", HTTP_200=r.AlertCreated))
    async def on_post(self, req, resp):
        """Create an alert: `conditions` ({field, operator, value}) combined by `logic` (AND: all hold, OR: any
        holds), evaluated at every scan on the market clock. It fires at most once per `cooldown` seconds (default
        3600), at most `max_triggers` times (default 10), until `expires_in_seconds` have passed (0: never). Each
        trigger is an `alert.triggered` event for you alone: on your SSE stream, and POSTed to `callback_url`
        (https) if given, signed per Standard Webhooks with the `secret` (`whsec_...`) in this answer, shown this
        once; its deliveries are listed at GET /api/v1/webhooks/deliveries (kind `alert`). Fields and operators:
        GET /api/v1/alerts/fields; a crossing compares with the previous scan's value. 422 for an unknown field
        or operator, or a value of the wrong type. Live alerts per agent by tier: free 5, premium 50,
        institutional 500 (409 `alert_limit_reached` past it); spent or expired alerts do not count."""
        agent = require_agent(req)
        body = req.context.json
        alert = body.model_dump()
        check_conditions(alert["conditions"])
        allow_private = self.services.settings.webhook_allow_private
        if body.callback_url is not None and (problem := await url_problem(body.callback_url, allow_private)):
            raise invalid(["body", "callback_url"], problem)
        try:
            made = await asyncio.to_thread(self.alerts.create, agent["id"], agent["tier"], alert,
                                           self.services.clock.now())
        except AlertLimitReached as exc:
            raise APIError(409, "alert_limit_reached", str(exc), tier=exc.tier, limit=exc.limit) from exc
        resp.media = made | ({"secret_shown_once": True, "signing": SIGNING} if "secret" in made else {})


class AlertsResource:
    def __init__(self, services: Services, alerts: Alerts):
        self.services, self.alerts = services, alerts

    @api_spec.validate(tags=["alerts"], resp=Documented("HTTP_401", HTTP_200=r.Alerts))
    async def on_get(self, req, resp):
        """Your alerts, oldest first, each with its `status` (active, paused in the console, expired, or exhausted
        at max_triggers),
        `trigger_count` and `last_triggered_at`, and your tier's limit of live alerts."""
        agent = require_agent(req)
        mine = await asyncio.to_thread(self.alerts.mine, agent["id"], self.services.clock.now())
        live = sum(1 for a in mine if a["status"] == "active")
        resp.media = {"alerts": mine, "count": len(mine), "live": live, "tier": agent["tier"],
                      "limit": ALERT_LIMITS[agent["tier"]], "limits_by_tier": ALERT_LIMITS}


class AlertResource:
    def __init__(self, alerts: Alerts):
        self.alerts = alerts

    @api_spec.validate(tags=["alerts"], resp=Documented("HTTP_401", "HTTP_404", HTTP_200=r.AlertDeleted))
    async def on_delete(self, req, resp, alert_id: str):
        """Delete one of your alerts (404 for an id that is not one of yours)."""
        agent = require_agent(req)
        # an id with a control character names no alert (and PostgreSQL refuses NUL even in a WHERE)
        named = len(alert_id) <= 40 and is_safe_line(alert_id)
        if not named or not await asyncio.to_thread(self.alerts.delete, agent["id"], alert_id):
            raise APIError(404, "unknown_alert", "You have no alert with that alert_id.")
        resp.media = {"deleted": True, "alert_id": alert_id}


class AlertFieldsResource:
    def __init__(self, services: Services):
        self.services = services

    @api_spec.validate(tags=["alerts"], resp=Documented("HTTP_401", HTTP_200=r.AlertFields))
    async def on_get(self, req, resp):
        """The fields an alert condition may name, each with its description, unit, type (number, or string
        with its `values`), the module and path in that module's `data` it reads, its operators and its current
        value (as published now; null before the module is published); and every operator with its meaning."""
        require_agent(req)
        payloads = await self._published({f.module for f in FIELDS.values()})
        resp.media = {
            "fields": [{"name": f.name, "description": f.description, "unit": f.unit, "type": f.type,
                        "values": list(f.values) or None, "module": f.module, "path": f.path,
                        "operators": list(f.operators), "current_value": value_of(payloads, f),
                        "as_of": (payloads.get(f.module) or {}).get("data_as_of")} for f in FIELDS.values()],
            "operators": [{"operator": op, "meaning": OPERATOR_TEXT[op]} for op in OPERATORS],
            "logic": ["AND", "OR"], "limits_by_tier": ALERT_LIMITS,
        }

    async def _published(self, modules: set[str]) -> dict[str, dict]:
        names = sorted(modules)
        bodies = await self.services.redis.mget([keys.module(name, "full") for name in names])
        return {name: orjson.loads(body) for name, body in zip(names, bodies) if body is not None}
