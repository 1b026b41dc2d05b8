"""The console's routes: every page on the API's own app, and the API use cases they answer with."""
from __future__ import annotations

import importlib.resources
from dataclasses import dataclass

import falcon.asgi

from api.catalog_queries import CatalogQueries
from api.console import alerts, balance, explore, limits, packages, record, sign_in, status, usage
from api.console.pages import BASE, STATIC, Page
from api.console.sessions import Sessions
from api.module_queries import ModuleQueries
from api.product_queries import ProductQueries
from api.pulse_queries import PulseQueries
from api.ratelimit import RateLimiter
from api.refusals import Refusals
from api.resources.sla import SLAResource
from api.services import Services
from marketintel.signing import ServiceKey
from warehouse.ledger import Plans
from warehouse.ledger.records import Records


@dataclass(frozen=True)
class ConsoleReads:
    """The API's own use cases the console answers with, so a page and a route cannot disagree."""
    catalog: CatalogQueries
    pulse: PulseQueries
    modules: ModuleQueries
    refusals: Refusals
    sla: SLAResource
    products: ProductQueries
    key: ServiceKey
    plans: Plans


class Home(Page):
    """/console: the balance when signed in, else the sign-in page."""

    async def on_get(self, req, resp):
        self.redirect(resp, f"{BASE}/balance" if await self.visitor(req) else f"{BASE}/sign-in")


def add_console_routes(app: falcon.asgi.App, services: Services, limiter: RateLimiter, reads: ConsoleReads) -> None:
    sessions = Sessions(services.redis, services.settings.console_session_ttl_s)
    app.add_route(BASE, Home(services, sessions))
    app.add_route(f"{BASE}/sign-in", sign_in.SignInPage(services, sessions, limiter))
    app.add_route(f"{BASE}/register", sign_in.RegisterPage(services, sessions, limiter))
    app.add_route(f"{BASE}/sign-out", sign_in.SignOut(services, sessions))
    app.add_route(f"{BASE}/rotate-key", sign_in.RotateKey(services, sessions))
    app.add_route(f"{BASE}/balance", balance.BalancePage(services, sessions))
    app.add_route(f"{BASE}/topup", balance.TopupForm(services, sessions))
    app.add_route(f"{BASE}/topup/{{payment_hash}}", balance.InvoicePage(services, sessions))
    app.add_route(f"{BASE}/topup/{{payment_hash}}/status", balance.InvoiceStatus(services, sessions))
    app.add_route(f"{BASE}/topup/{{payment_hash}}/dev-pay", balance.DevWalletPayment(services, sessions))
    app.add_route(f"{BASE}/usage", usage.UsagePage(services, sessions, reads.plans))
    app.add_route(f"{BASE}/limits", limits.LimitsPage(services, sessions))
    app.add_route(f"{BASE}/alerts", alerts.AlertsPage(services, sessions))
    app.add_route(f"{BASE}/packages", packages.PackagesPage(services, sessions, reads.refusals))
    app.add_route(f"{BASE}/status", status.StatusPage(services, sessions, reads.sla))
    app.add_route(f"{BASE}/explore", explore.ExplorePage(services, sessions, reads.catalog, reads.pulse))
    app.add_route(f"{BASE}/explore/{{module_name}}",
                  explore.TryPage(services, sessions, reads.catalog, reads.modules, reads.refusals))
    app.add_route(f"{BASE}/record", record.RecordPage(services, sessions, reads.products,
                                                      record.ChainChecks(Records(services.engine), reads.key)))
    app.add_static_route(STATIC, str(importlib.resources.files("api.console") / "static"))
