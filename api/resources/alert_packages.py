"""Alert packages: the listing (no credential), subscribe (charged through the charging service), unsubscribe,
your subscriptions and a package's history. The packages are intel/events/packages.py, their prices the one
price list (charging/prices.py), the subscriptions warehouse/ledger/alert_packages.py."""
from __future__ import annotations

import asyncio

from api import response_docs_routes as r
from api.errors import APIError, invalid, tier_required
from api.middleware import require_agent
from api.resources.alerts import url_problem
from api.resources.webhooks import SIGNING
from api.schemas import AlertPackagesQuery, PackageHistoryQuery, PackageSubscribeBody
from api.services import Services
from api.spec import Documented, api_spec
from charging.attempt import Attempt, Charge
from intel.events.packages import DELIVERY_CHANNELS, PACKAGES, AlertPackage
from intel.events.types import EVENT_TYPES, URGENCIES
from warehouse.ledger.alert_packages import PackageSubscriptions

CHANNEL_URL = {"webhook": "callback_url", "chat": "chat_webhook_url"}  # the URL each delivery channel needs


def listing(package: AlertPackage, services: Services) -> dict:
    item = services.prices.package(package.package_id)
    return {"package_id": package.package_id, "name": package.name, "description": package.description,
            "tier": package.tier, "event_types": [{"name": t, "description": EVENT_TYPES[t].description,
                                                   "urgency": EVENT_TYPES[t].urgency} for t in package.event_types],
            "price_sats": item.price_sats, "period_days": package.period_days, "item": item.key,
            "subscribe": f"/api/v1/alert-packages/{package.package_id}/subscribe"}


def known_package(package_id: str) -> AlertPackage:
    package = PACKAGES.get(package_id)
    if package is None:
        raise APIError(404, "unknown_package", "No alert package has that package_id.",
                       packages=sorted(PACKAGES), listing="/api/v1/alert-packages")
    return package


def entitled(agent: dict, package: AlertPackage) -> None:
    if not package.allowed_for(agent["tier"]):
        raise tier_required(f"The {package.name} package needs the {package.tier} tier (yours is {agent['tier']}).",
                            agent["tier"], package.tier)


async def check_delivery(body, allow_private: bool) -> dict:
    """422 unless every chosen channel has its URL, and every URL given is acceptable."""
    delivery = body.model_dump()
    delivery["delivery_channels"] = list(dict.fromkeys(body.delivery_channels))
    for channel in delivery["delivery_channels"]:
        if delivery[CHANNEL_URL[channel]] is None:
            raise invalid(["body", CHANNEL_URL[channel]], f"the {channel} channel needs {CHANNEL_URL[channel]}",
                          "missing")
    for name in CHANNEL_URL.values():
        if delivery[name] is not None and (problem := await url_problem(delivery[name], allow_private)):
            raise invalid(["body", name], problem)
    return delivery


async def subscribe_paid(services: Services, subscriptions: PackageSubscriptions, attempt: Attempt, agent_pk: int,
                         package: AlertPackage, delivery: dict) -> tuple[dict, Charge]:
    """Charge one period through the charging service, then store the subscription (the charge undone if it
    cannot be stored): (subscription, charge). The REST route and the console's packages page both come here."""
    charge = await services.charging.charge(attempt)
    try:
        subscription = await asyncio.to_thread(subscriptions.subscribe, agent_pk, package, delivery,
                                               attempt.request_id)
    except BaseException:
        await services.charging.undo(attempt)
        raise
    return subscription, charge


class AlertPackagesResource:
    public = True  # interface.md: the listing needs no credential

    def __init__(self, services: Services):
        self.services = services

    @api_spec.validate(query=AlertPackagesQuery, tags=["alert packages"],
                       resp=Documented("HTTP_422", HTTP_200=r.AlertPackages))
    async def on_get(self, req, resp):
        """Named alert packages: bundles of event types, each with its tier (premium or institutional), its price
        for one period and the period's length. Subscribing pays one period from your credit or balance."""
        tier = req.context.query.tier
        resp.media = {"packages": [listing(p, self.services) for p in PACKAGES.values() if tier in (None, p.tier)],
                      "delivery_channels": list(DELIVERY_CHANNELS), "urgencies": list(URGENCIES),
                      "currency": "sats"}


class PackageSubscribeResource:
    priced = {"POST": ("package:",)}
    def __init__(self, services: Services, subscriptions: PackageSubscriptions):
        self.services, self.subscriptions = services, subscriptions

    @api_spec.validate(json=PackageSubscribeBody, tags=["alert packages"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_403", "HTTP_404", "HTTP_422",
                                       HTTP_200=r.PackageSubscribed))
    async def on_post(self, req, resp, package_id: str):
        """Subscribe to a package for one period, or add a period to a running subscription (the new channels
        apply at once). Needs the package's tier (403). `delivery_channels`: `webhook` (needs `callback_url`)
        and/or `chat` (needs `chat_webhook_url`, a Slack- or Discord-style incoming webhook), both https;
        `min_urgency` (default low) filters the events sent. The webhook channel's POSTs are signed per Standard
        Webhooks with the `secret` (`whsec_...`) in `subscription`, shown once: when the subscription first has
        that channel (a renewal keeps it). Chat messages (`{"text", "content"}`: "<urgency> <type>: <summary>")
        are unsigned, as those endpoints verify none. Deliveries are listed at GET /api/v1/webhooks/deliveries
        (kinds `package_webhook`, `package_chat`). The price is charged once, from your credit pools
        then your balance (402 with an invoice when they cannot pay it); nothing is charged if the subscription
        cannot be stored."""
        agent = require_agent(req)
        package = known_package(package_id)
        entitled(agent, package)
        delivery = await check_delivery(req.context.json, self.services.settings.webhook_allow_private)
        attempt = Attempt(req.context.payer, self.services.prices.package(package_id), req.context.request_id)
        subscription, charge = await subscribe_paid(self.services, self.subscriptions, attempt, agent["id"], package,
                                                    delivery)
        signing = {"secret_shown_once": True, "signing": SIGNING} if "secret" in subscription else {}
        resp.media = {**signing, "subscription": subscription, "charged_sats": charge.charged_sats,
                      "paid_with": charge.paid_with, "balance_sats": charge.balance_sats,
                      "_meta": {"request_id": req.context.request_id, "charged_sats": charge.charged_sats,
                                "price_sats": attempt.item.price_sats}}


class PackageUnsubscribeResource:
    def __init__(self, subscriptions: PackageSubscriptions):
        self.subscriptions = subscriptions

    @api_spec.validate(tags=["alert packages"], resp=Documented("HTTP_401", "HTTP_404", HTTP_200=r.PackageUnsubscribed))
    async def on_delete(self, req, resp, package_id: str):
        """Cancel your running subscription to a package: deliveries stop at once; the period paid is not
        refunded. 404 when none runs."""
        agent = require_agent(req)
        known_package(package_id)
        cancelled = await asyncio.to_thread(self.subscriptions.unsubscribe, agent["id"], package_id)
        if cancelled is None:
            raise APIError(404, "not_subscribed", "You have no running subscription to this package.")
        resp.media = {"unsubscribed": True, "subscription": cancelled}


class MyPackagesResource:
    def __init__(self, subscriptions: PackageSubscriptions):
        self.subscriptions = subscriptions

    @api_spec.validate(tags=["alert packages"], resp=Documented("HTTP_401", HTTP_200=r.MyPackages))
    async def on_get(self, req, resp):
        """Your package subscriptions, running or not (`active`), with their channels, period end and periods
        paid."""
        agent = require_agent(req)
        mine = await asyncio.to_thread(self.subscriptions.mine, agent["id"])
        resp.media = {"subscriptions": mine, "active": sum(1 for s in mine if s["active"])}


class PackageHistoryResource:
    def __init__(self, subscriptions: PackageSubscriptions):
        self.subscriptions = subscriptions

    @api_spec.validate(query=PackageHistoryQuery, tags=["alert packages"],
                       resp=Documented("HTTP_401", "HTTP_403", "HTTP_404", "HTTP_422", HTTP_200=r.PackageHistory))
    async def on_get(self, req, resp, package_id: str):
        """The package's latest events (`limit` 1-100, default 20), newest first, with their SSE ids. Needs the
        package's tier (403)."""
        agent = require_agent(req)
        package = known_package(package_id)
        entitled(agent, package)
        events = await asyncio.to_thread(self.subscriptions.history, package, req.context.query.limit)
        resp.media = {"package_id": package_id, "events": events, "count": len(events)}
