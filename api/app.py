"""`create_app(settings)`: builds the collaborators and adds the routes."""
from __future__ import annotations

import importlib.resources
import logging

import falcon
import falcon.asgi

from api import errors
from api.metering import Metering
from api.metrics import RequestMetrics
from api.middleware import Authentication, RequestContext
from api.ratelimit import RateLimiter
from api.resources.agents import BalanceResource, MeResource, RegisterResource, TopupResource
from api.resources.dashboard import DashboardResource
from api.resources.sla import SLAResource
from api.resources.catalog import ModulesResource, PricingResource
from api.resources.discovery import DOCS_ASSETS, DocsResource, HealthResource, OpenAPIResource, RootResource
from api.resources.intelligence import IntelligenceResource
from api.resources.payments import CreateInvoiceResource, VerifyPaymentResource
from api.resources.pulse import PulseResource
from warehouse.cache import AsyncServingCache
from api.services import Services
from api.spec import api_spec
from api.ticker_modules import TickerModules
from api.usage import UsageRecorder
from intel.registry import modules
from api.media import json_handlers
from marketintel.settings import Settings

V1 = "/api/v1"


def create_app(settings: Settings, services: Services | None = None) -> falcon.asgi.App:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s api %(levelname)s %(name)s %(message)s")
    services = services or Services.build(settings)
    registry = modules()
    serving = AsyncServingCache(services.redis)
    metering = Metering(services)
    limiter = RateLimiter(settings.effective_redis_url)
    pulse_budget = limiter.budget("pulse", f"{settings.pulse_rate_per_minute}/minute")

    # RequestMetrics first: its latency spans the other middleware, and it sees the final status.
    app = falcon.asgi.App(middleware=[
        RequestMetrics(settings.effective_redis_url),
        RequestContext(settings.trust_forwarded_for, services.data_source, services.simulated),
        Authentication(services.agents),
    ])
    handlers = json_handlers()
    app.req_options.media_handlers.update(handlers)
    app.resp_options.media_handlers.update(handlers)
    errors.install(app)

    app.add_route("/", RootResource(services))
    app.add_route("/health", HealthResource(services, serving))
    app.add_route("/health/dashboard", DashboardResource(services, serving))
    app.add_route(f"{V1}/sla", SLAResource(services, serving))
    app.add_route(f"{V1}/pulse", PulseResource(services, serving, pulse_budget))
    app.add_route(f"{V1}/modules", ModulesResource(services, registry, metering, serving))
    app.add_route(f"{V1}/pricing", PricingResource(services, registry))
    app.add_route(f"{V1}/intelligence/{{module_name}}", IntelligenceResource(
        services, registry, metering, serving, TickerModules(services), UsageRecorder(services.jobs)))
    app.add_route(f"{V1}/agents/register", RegisterResource(services))
    app.add_route(f"{V1}/agents/me", MeResource(services))
    app.add_route(f"{V1}/agents/balance", BalanceResource(services))
    app.add_route(f"{V1}/agents/topup", TopupResource(services))
    app.add_route(f"{V1}/payments/create-invoice", CreateInvoiceResource(services))
    app.add_route(f"{V1}/payments/verify/{{payment_hash}}", VerifyPaymentResource(services))
    api_spec.register(app)  # spectree collects the validated routes into the spec
    app.add_route("/openapi.json", OpenAPIResource())
    app.add_route("/docs", DocsResource())
    app.add_static_route(DOCS_ASSETS, str(importlib.resources.files("swagger_ui") / "static"))
    return app
