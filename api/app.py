"""`create_app(settings)`: builds the collaborators and adds the routes."""
from __future__ import annotations

import importlib.resources
import logging

import falcon
import falcon.asgi

from api.catalog_queries import CatalogQueries
from api.console.routes import ConsoleReads, add_console_routes
from api.context import Request
from api.event_fanout import EventFanout, RedisGate
from api.history_queries import HistoryQueries
from api.mcp.calls import ToolCalls
from api.mcp.server import MCP_PATH, MCPEndpoint, build_server
from api.mcp.tools import catalog
from api.media import json_handlers
from api.metrics import RequestMetrics
from api.middleware import Authentication, RequestContext, SharedClients
from api.module_queries import ModuleQueries
from api.past_answers import PastAnswers
from api.product_queries import ProductQueries
from api.pulse_queries import PulseQueries
from api.ratelimit import KeyBudgets, RateLimiter, batch_cost
from api.refusals import Refusals
from api.resources import alert_packages, alerts, content, daytrade, foresight, synthesis, trading
from api.resources import plans as plan_routes
from api.resources.agents import (
    BalanceResource,
    MeResource,
    RegisterResource,
    RotateKeyResource,
    TopupResource,
    UpgradeResource,
)
from api.resources.batch import BatchResource
from api.resources.catalog import CatalogPreviewResource, CatalogResource, ModulesResource
from api.resources.charts import ChartResource
from api.resources.consensus import ConsensusQueries, ConsensusResource
from api.resources.dashboard import DashboardResource
from api.resources.discovery import DOCS_ASSETS, DocsResource, HealthResource, OpenAPIResource, RootResource
from api.resources.events_info import ScannerStatusResource, WebhookEventTypesResource
from api.resources.events_stream import ConnectionSlots, EventStatusResource, EventStreamResource
from api.resources.intelligence import HistoryResource, IntelligenceResource
from api.resources.metrics_endpoint import MetricsResource
from api.resources.payments import CreateInvoiceResource, VerifyPaymentResource
from api.resources.pricing import PricingResource
from api.resources.pulse import PulseResource
from api.resources.records import CHAIN_EXPORT_PATH, SIGNING_KEY_PATH, ChainExportResource, SigningKeyResource
from api.resources.referrals import ReferralCodeResource, ReferralCreditsResource, ReferralStatsResource
from api.resources.sampling import SamplingStatusResource
from api.resources.sla import SLAResource
from api.resources.unified import UnifiedResource
from api.resources.webhooks import WebhookDeliveriesResource, WebhookSubscribeResource, WebhookUnsubscribeResource
from api.services import Services
from api.spec import api_spec
from api.synthesis_queries import SynthesisQueries, UnifiedQueries
from api.ticker_modules import TickerModules
from api.tools import service_tools
from api.usage import UsageRecorder
from intel.registry import modules
from marketintel.chart_files import ChartFiles
from marketintel.logs import configure
from marketintel.redis_clients import async_options
from marketintel.settings import Settings
from marketintel.signing import load_or_create
from warehouse.cache import AsyncServingCache
from warehouse.events_async import AsyncEventLog
from warehouse.history_store import HistoryReader
from warehouse.ledger import Plans, Referrals, commitment_plans, subscription_plans
from warehouse.ledger.alert_packages import PackageSubscriptions
from warehouse.ledger.alerts import Alerts
from warehouse.ledger.daytrade import Journal, TermsAcceptances
from warehouse.ledger.records import Records
from warehouse.ledger.webhooks import Webhooks

V1 = "/api/v1"


def create_app(settings: Settings, services: Services | None = None) -> falcon.asgi.App:
    configure("api", settings.log_format)
    services = services or Services.build(settings)
    registry = modules()
    serving = AsyncServingCache(services.redis)
    limiter = RateLimiter(settings.effective_redis_url, async_options(settings))
    pulse_budget = limiter.budget("pulse", f"{settings.pulse_rate_per_minute}/minute")
    key_budgets = KeyBudgets(limiter, {"free": settings.rate_limit_free, "premium": settings.rate_limit_premium,
                                       "institutional": settings.rate_limit_institutional})
    # plans run on the ledger's clock (services.money.now), so tiers, pools and plan periods agree on "now"
    plans = Plans(services.engine, commitment_plans(settings.commitment_plans),
                  subscription_plans(settings.subscription_plans), now=services.money.now)

    # RequestMetrics first: its latency spans the other middleware, and it sees the final status.
    app = falcon.asgi.App(request_type=Request, middleware=[
        RequestMetrics(settings.effective_redis_url),
        RequestContext(settings.trust_forwarded_for, services.data_source, services.simulated),
        Authentication(services.directory),
        key_budgets,  # after Authentication: the limit is per agent and by its effective tier
        SharedClients(services),
    ])
    handlers = json_handlers()
    app.req_options.media_handlers.update(handlers)
    app.resp_options.media_handlers.update(handlers)
    refusals = Refusals(services.data_source, services.simulated)
    refusals.install(app)

    app.add_route("/", RootResource(services))
    app.add_route("/health", HealthResource(services, serving))
    app.add_route("/health/dashboard", DashboardResource(services, serving))
    sla = SLAResource(services, serving)
    app.add_route(f"{V1}/sla", sla)
    app.add_route("/metrics", MetricsResource(settings, services.engine,
                                              sorted(n for n, m in registry.items() if not m.takes_ticker)))
    history = HistoryReader(settings.history_copy_path)
    past = PastAnswers(services, history)
    pulse = PulseQueries(services, serving, pulse_budget, past)
    app.add_route(f"{V1}/pulse", PulseResource(pulse))
    tools = service_tools(services.prices, registry)  # function calling's, MCP's and the catalog's, made once
    catalog = CatalogQueries(services, registry, serving, tools)
    app.add_route(f"{V1}/modules", ModulesResource(catalog))
    app.add_route(f"{V1}/pricing", PricingResource(services, registry, plans))
    app.add_route(f"{V1}/catalog", CatalogResource(catalog))
    app.add_route(f"{V1}/catalog/preview", CatalogPreviewResource(services, registry, pulse_budget))
    app.add_route(f"{V1}/sampling/status", SamplingStatusResource(services, registry))
    usage = UsageRecorder(services.jobs)
    module_queries = ModuleQueries(services, serving, TickerModules(services), usage, key_budgets, past)
    synthesis_queries = SynthesisQueries(services, usage)
    products = ProductQueries(services, serving, usage, past)
    _add_synthesis_routes(app, services, synthesis_queries)  # before the intelligence routes: fixed sub-paths
    _add_intelligence_routes(app, registry, module_queries, key_budgets, refusals)
    _add_foresight_routes(app, products, key_budgets)
    _add_consensus_route(app, services, serving, registry, key_budgets)
    _add_trading_routes(app, services, products, key_budgets)
    for path, resource in {"agents/register": RegisterResource, "agents/me": MeResource,
                           "agents/balance": BalanceResource, "agents/topup": TopupResource,
                           "agents/rotate-key": RotateKeyResource, "agents/upgrade": UpgradeResource,
                           "payments/create-invoice": CreateInvoiceResource,
                           "payments/verify/{payment_hash}": VerifyPaymentResource}.items():
        app.add_route(f"{V1}/{path}", resource(services))
    _add_plan_and_referral_routes(app, services, plans, Referrals(services.engine))
    _add_webhook_routes(app, services)
    _add_alert_routes(app, services)
    _add_event_info_routes(app, services)
    _add_event_stream_routes(app, services)
    _add_integration_routes(app, services, registry, tools)
    _add_mcp_routes(app, services, ToolCalls(module_queries, synthesis_queries, products, pulse, catalog, refusals),
                    tools)
    key = load_or_create(settings.home)  # made at first start
    app.add_route(SIGNING_KEY_PATH, SigningKeyResource(key, serving))
    app.add_route(CHAIN_EXPORT_PATH, ChainExportResource(Records(services.engine)))
    # web pages, not operations: left out of the spec (api/spec.py)
    add_console_routes(app, services, limiter,
                       ConsoleReads(catalog, pulse, module_queries, refusals, sla, products, key, plans))
    api_spec.register(app)  # spectree collects the validated routes into the spec
    # each operation's credentials come from its resource's attributes: the router finds it by the path template
    resource_of = lambda path: (app._router.find(path) or (None,))[0]  # noqa: E731
    app.add_route("/openapi.json", OpenAPIResource(resource_of, sorted(registry), services.prices))
    app.add_route("/docs", DocsResource())
    app.add_static_route(DOCS_ASSETS, str(importlib.resources.files("swagger_ui") / "static"))
    return app


def _add_intelligence_routes(app: falcon.asgi.App, registry: dict, queries: ModuleQueries, key_budgets: KeyBudgets,
                             refusals: Refusals) -> None:
    batch, intelligence = BatchResource(registry, queries, refusals), IntelligenceResource(registry, queries)
    key_budgets.guard(batch, batch_cost)  # a module query takes its window in its own round trip
    app.add_route(f"{V1}/intelligence/batch", batch)
    app.add_route(f"{V1}/intelligence/{{module_name}}", intelligence)
    history = HistoryResource(registry, HistoryQueries(queries.services, queries.usage, queries.past))
    key_budgets.guard(history)  # the caller's per-key query budget, as a module query
    app.add_route(f"{V1}/intelligence/{{module_name}}/history", history)


def _add_integration_routes(app: falcon.asgi.App, services: Services, registry: dict, tools: list) -> None:
    """Where agents meet the service: A2A cards, function-calling tools and configs, framework configs, templates."""
    from api.resources import agent_cards, integrations, templates

    app.add_route(agent_cards.LEGACY_CARD_PATH, agent_cards.LegacyAgentCardResource(services, registry))
    app.add_route(agent_cards.CURRENT_CARD_PATH, agent_cards.CurrentAgentCardResource(services, registry))
    for path, route in {"functioncalling/tools": integrations.FunctionCallingToolsResource,
                        "functioncalling/config": integrations.FunctionCallingConfigResource,
                        "chain/config": integrations.ChainConfigResource,
                        "crew/config": integrations.CrewConfigResource}.items():
        app.add_route(f"{V1}/integrations/{path}", route(services, tools, registry))
    app.add_route(f"{V1}/templates", templates.TemplatesResource(services, registry))


def _add_mcp_routes(app: falcon.asgi.App, services: Services, calls: ToolCalls, tools: list) -> None:
    """/mcp (the manifest and the transport), its health and server card (api/mcp); the SDK's session manager runs
    for the app's lifespan."""
    from api.resources import mcp_endpoint, mcp_info

    # the SDK logs every stateless exchange at INFO ("Terminating session: None"): its warnings and errors are enough
    logging.getLogger("mcp").setLevel(logging.WARNING)
    specs = catalog(tools, calls.catalog.registry)
    endpoint = MCPEndpoint(build_server(specs, calls), specs)
    app.add_middleware(endpoint)  # after SharedClients: shut down first, before the shared clients close
    app.add_route(MCP_PATH, mcp_endpoint.MCPResource(endpoint))
    health = mcp_info.MCPHealthResource(endpoint, services)
    for path in mcp_info.HEALTH_PATHS:
        app.add_route(path, health)
    card = mcp_info.ServerCardResource(endpoint)
    for path in mcp_info.SERVER_CARD_PATHS:
        app.add_route(path, card)


def _add_synthesis_routes(app: falcon.asgi.App, services: Services, queries: SynthesisQueries) -> None:
    """Ask, content and their poll target (RQ jobs, api/synthesis_queries.py), unified context and chart files."""
    # the fixed sub-paths are routes, not modules (interface.md): literal segments win over {module_name}
    app.add_route(f"{V1}/intelligence/ask", synthesis.AskResource(queries))
    app.add_route(f"{V1}/intelligence/ask/async", synthesis.AskAsyncResource(queries))
    app.add_route(f"{V1}/intelligence/unified", UnifiedResource(UnifiedQueries(services, queries.usage)))
    app.add_route(f"{V1}/synthesis/result/{{request_id}}", synthesis.SynthesisResultResource(queries))
    app.add_route(f"{V1}/content/types", content.ContentTypesResource(services))
    app.add_route(f"{V1}/content/generate", content.GenerateResource(queries))
    app.add_route(f"{V1}/content/generate/async", content.GenerateAsyncResource(queries))
    app.add_route("/charts/newsletter/{filename}", ChartResource(ChartFiles.from_settings(services.settings)))


def _add_foresight_routes(app: falcon.asgi.App, products: ProductQueries, key_budgets: KeyBudgets) -> None:
    routes = {f"{V1}/trading/regime": foresight.RegimeResource(products),
              f"{V1}/predictions": foresight.PredictionsResource(products),
              f"{V1}/predictions/accuracy": foresight.AccuracyResource(products),
              # fixed intelligence sub-paths: routes, not modules (literal segments win over {module_name})
              f"{V1}/intelligence/parallels": foresight.ParallelsResource(products),
              f"{V1}/intelligence/track_record": foresight.TrackRecordResource(products)}
    for path, resource in routes.items():
        key_budgets.guard(resource)  # the caller's per-key query budget, as a module query
        app.add_route(path, resource)


def _add_consensus_route(app: falcon.asgi.App, services: Services, serving: AsyncServingCache, registry: dict,
                         key_budgets: KeyBudgets) -> None:
    """Agent consensus from the usage ledger; a fixed intelligence sub-path, not a module (literal segments win
    over {module_name})."""
    resource = ConsensusResource(ConsensusQueries(services, serving, UsageRecorder(services.jobs), registry))
    key_budgets.guard(resource)  # the caller's per-key query budget, as a module query
    app.add_route(f"{V1}/intelligence/consensus", resource)


def _add_trading_routes(app: falcon.asgi.App, services: Services, products: ProductQueries,
                        key_budgets: KeyBudgets) -> None:
    """The trading area: the institutional signals (a published product), and the day-trade paper journal: its
    events, the acceptance of its terms, its free track record."""
    routes = {f"{V1}/trading/signals": trading.TradingSignalsResource(products)}
    for path, resource in routes.items():
        key_budgets.guard(resource)  # the caller's per-key query budget, as a module query
        app.add_route(path, resource)
    journal, acceptances = Journal(services.engine), TermsAcceptances(services.engine)
    access = daytrade.DayTradeAccess(services, acceptances)
    app.add_route(daytrade.BASE, daytrade.DayTradeIdeasResource(services, access, journal))
    app.add_route(daytrade.ACCEPT_PATH, daytrade.AcceptTermsResource(services, acceptances))
    app.add_route(f"{daytrade.BASE}/track-record", daytrade.TrackRecordResource(services, journal))


def _add_plan_and_referral_routes(app: falcon.asgi.App, services: Services, plans: Plans,
                                  referrals: Referrals) -> None:
    app.add_route(f"{V1}/commitments/plans", plan_routes.CommitmentPlansResource(plans, services))
    app.add_route(f"{V1}/commitments/activate", plan_routes.CommitmentActivateResource(plans, services))
    app.add_route(f"{V1}/commitments/status", plan_routes.CommitmentStatusResource(plans, services))
    app.add_route(f"{V1}/subscriptions/plans", plan_routes.SubscriptionPlansResource(plans, services))
    app.add_route(f"{V1}/subscriptions/subscribe", plan_routes.SubscribeResource(plans, services))
    app.add_route(f"{V1}/subscriptions/status", plan_routes.SubscriptionStatusResource(plans, services))
    app.add_route(f"{V1}/referrals/code", ReferralCodeResource())
    app.add_route(f"{V1}/referrals/stats", ReferralStatsResource(referrals))
    app.add_route(f"{V1}/referrals/credits", ReferralCreditsResource(referrals))


def _add_webhook_routes(app: falcon.asgi.App, services: Services) -> None:
    webhooks, settings = Webhooks(services.engine), services.settings
    app.add_route(f"{V1}/webhooks/subscribe", WebhookSubscribeResource(webhooks, settings.webhook_allow_private,
                                                                       settings.webhook_timeout_s))
    app.add_route(f"{V1}/webhooks/unsubscribe", WebhookUnsubscribeResource(webhooks))
    app.add_route(f"{V1}/webhooks/deliveries", WebhookDeliveriesResource(webhooks, settings.webhook_timeout_s))


def _add_alert_routes(app: falcon.asgi.App, services: Services) -> None:
    store = Alerts(services.engine)
    app.add_route(f"{V1}/alerts", alerts.AlertsResource(services, store))
    app.add_route(f"{V1}/alerts/subscribe", alerts.AlertSubscribeResource(services, store))
    app.add_route(f"{V1}/alerts/fields", alerts.AlertFieldsResource(services))
    app.add_route(f"{V1}/alerts/{{alert_id}}", alerts.AlertResource(store))
    # package periods are paid time: the ledger's clock, as plans and tiers
    subscriptions = PackageSubscriptions(services.engine, now=services.money.now)
    app.add_route(f"{V1}/alert-packages", alert_packages.AlertPackagesResource(services))
    app.add_route(f"{V1}/alert-packages/my", alert_packages.MyPackagesResource(subscriptions))
    app.add_route(f"{V1}/alert-packages/{{package_id}}/subscribe",
                  alert_packages.PackageSubscribeResource(services, subscriptions))
    app.add_route(f"{V1}/alert-packages/{{package_id}}/unsubscribe",
                  alert_packages.PackageUnsubscribeResource(subscriptions))
    app.add_route(f"{V1}/alert-packages/{{package_id}}/history", alert_packages.PackageHistoryResource(subscriptions))


def _add_event_info_routes(app: falcon.asgi.App, services: Services) -> None:
    app.add_route(f"{V1}/events/scanner", ScannerStatusResource(services))
    app.add_route(f"{V1}/webhooks/events", WebhookEventTypesResource())


def _add_event_stream_routes(app: falcon.asgi.App, services: Services) -> None:
    """The SSE stream and its status; the process's one stream reader stops with the server."""
    settings = services.settings
    log, gate = AsyncEventLog(services.engine, services.redis), RedisGate()
    fanout = EventFanout(log, gate)
    app.add_middleware(fanout)  # its process_shutdown cancels the reader before the shared clients close
    slots = ConnectionSlots(services.redis, {"free": settings.sse_connections_free,
                                             "premium": settings.sse_connections_premium,
                                             "institutional": settings.sse_connections_institutional},
                            settings.sse_heartbeat_s, gate)
    app.add_route(f"{V1}/events/stream", EventStreamResource(fanout, slots, settings.sse_heartbeat_s,
                                                             settings.sse_retry_ms))
    app.add_route(f"{V1}/events/status", EventStatusResource(log, slots, services.clock))
