"""Alert packages: the named bundles of event types with their tier, price and period; the agent's subscriptions;
subscribe (one period, charged through the one charging service as POST /api/v1/alert-packages/{id}/subscribe
is) and cancel. Deliveries show on the alerts page with every other delivery."""
from __future__ import annotations

import asyncio

from pydantic import ValidationError

from api.console.alerts import first_error
from api.console.pages import BASE, FormPage
from api.errors import APIError, ValidationFailed
from api.refusals import Refusals
from api.resources.alert_packages import check_delivery, listing, subscribe_paid
from api.schemas import PackageSubscribeBody
from charging.attempt import Attempt, Payer
from intel.events.packages import PACKAGES
from intel.events.types import URGENCIES
from warehouse.ledger.alert_packages import PackageSubscriptions

CHANNELS = {"webhook": ["webhook"], "chat": ["chat"], "both": ["webhook", "chat"]}  # the form's choices


class PackagesPage(FormPage):
    def __init__(self, services, sessions, refusals: Refusals):
        super().__init__(services, sessions)
        self.subscriptions, self.refusals = PackageSubscriptions(services.engine), refusals

    async def show(self, resp, visitor, status: int = 200, **values) -> None:
        tier = visitor.agent["tier"]
        packages = [{**listing(p, self.services), "allowed": p.allowed_for(tier)} for p in PACKAGES.values()]
        mine = await asyncio.to_thread(self.subscriptions.mine, visitor.agent["id"])
        self.render(resp, "packages.html", status, visitor, packages=packages, mine=mine, urgencies=URGENCIES,
                    **{"shown_secret": None, "need_topup": False, **values})

    async def on_post(self, req, resp):
        posted = await self.posted(req, resp)
        if posted is None:
            return
        visitor, form = posted
        package = PACKAGES.get(form.get("package_id", ""))
        if package is None:
            return await self.show(resp, visitor, 404, error="No alert package has that id.")
        if form.get("action") == "unsubscribe":
            cancelled = await asyncio.to_thread(self.subscriptions.unsubscribe, visitor.agent["id"], package.package_id)
            if cancelled is None:
                return await self.show(resp, visitor, 404, error="You have no running subscription to this package.")
            return self.redirect(resp, f"{BASE}/packages")
        if not package.allowed_for(visitor.agent["tier"]):
            return await self.show(resp, visitor, 403, error=f"The {package.name} package needs the {package.tier} "
                                   f"tier (yours is {visitor.agent['tier']}).")
        try:
            body = PackageSubscribeBody(delivery_channels=CHANNELS.get(form.get("channels", ""), []),
                                        callback_url=form.get("callback_url", "").strip() or None,
                                        chat_webhook_url=form.get("chat_webhook_url", "").strip() or None,
                                        min_urgency=form.get("min_urgency", "low"))
            delivery = await check_delivery(body, self.services.settings.webhook_allow_private)
        except (ValidationError, ValidationFailed) as exc:
            detail = exc.detail[0] if isinstance(exc, ValidationFailed) else None
            message = f"{detail['loc'][-1]}: {detail['msg']}" if detail else first_error(exc)
            return await self.show(resp, visitor, 422, error=f"That subscription cannot be made: {message}")
        attempt = Attempt(Payer.of(visitor.agent, req.context.client_ip),
                          self.services.prices.package(package.package_id), req.context.request_id)
        try:
            subscription, _ = await subscribe_paid(self.services, self.subscriptions, attempt, visitor.agent["id"],
                                                   package, delivery)
        except Exception as exc:  # noqa: BLE001 (a refusal is shown as the API would answer it)
            error: APIError = self.refusals.of(exc, req.context.request_id, "console package subscribe")
            return await self.show(resp, visitor, error.status, error=f"{error.message} ({error.status} {error.code})",
                                   need_topup=error.status == 402)
        if "secret" in subscription:  # shown this once, on the answer to the form: never in a URL
            return await self.show(resp, visitor, shown_secret=subscription["secret"])
        self.redirect(resp, f"{BASE}/packages")
