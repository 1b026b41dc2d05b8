"""GET / (discovery links), GET /health, /openapi.json and /docs."""
from __future__ import annotations

import asyncio
import time

import orjson

from api import response_docs_routes as r
from api import response_docs_shapes as shapes
from api.metrics import PROCESS_STARTED
from api.services import Services
from api.spec import Documented, api_spec, openapi_document
from warehouse.cache import AsyncServingCache
from warehouse.ledger import ping


class RootResource:
    public = True  # interface.md: no credential needed

    def __init__(self, services: Services):
        self.services = services

    @api_spec.validate(tags=["discovery"], resp=Documented(HTTP_200=r.ServiceIndex))
    async def on_get(self, req, resp):
        """Discovery links and the quick-start order."""
        resp.media = {
            "service": "marketintel", "version": "2.0.0",
            "description": "Market intelligence for AI agents; pay per query in sats over Lightning.",
            "data_source": self.services.data_source, "simulated": self.services.simulated,
            "quick_start": ["GET /api/v1/pulse", "POST /api/v1/agents/register",
                            "GET /api/v1/intelligence/market_intelligence", "POST /api/v1/agents/topup"],
            "links": {"pulse": "/api/v1/pulse", "modules": "/api/v1/modules", "pricing": "/api/v1/pricing",
                      "register": "/api/v1/agents/register", "health": "/health",
                      "openapi": "/openapi.json", "docs": "/docs"},
            "disclaimer": "Educational and informational only; not financial advice.",
        }


class ServingReport:
    """A route reporting on the service and what the serving cache holds (health, dashboard, SLA): no credential
    needed (interface.md)."""

    public = True

    def __init__(self, services: Services, serving: AsyncServingCache):
        self.services = services
        self.serving = serving


class HealthResource(ServingReport):
    @api_spec.validate(tags=["discovery"], resp=Documented(HTTP_200=shapes.HealthReport, HTTP_503=shapes.HealthReport))
    async def on_get(self, req, resp):
        """Liveness of the ledger and the cache, and the age of the published data. 503 when a dependency
        is down (named in `down`, with Retry-After) or nothing has been published yet. Each check is bounded by
        MI_HEALTH_CHECK_TIMEOUT_S and they run at once, so a frozen part costs this answer that bound, not more."""
        bound = self.services.settings.health_check_timeout_s
        redis_check, ledger_check = await asyncio.gather(
            bounded(self._redis_and_pulse(), bound), bounded(asyncio.to_thread(ping, self.services.engine), bound))
        checks = {"redis": redis_check[0], "ledger": ledger_check[0]}
        published = redis_check[1] if checks["redis"] == "ok" else None
        checks["data"] = "ok" if published else "not yet published"
        healthy = all(v == "ok" for v in checks.values())
        down = [part for part in ("redis", "ledger") if checks[part] != "ok"]
        resp.status = 200 if healthy else 503
        if down:
            resp.set_header("Retry-After", str(self.services.settings.dependency_retry_after_s))
        resp.media = {"status": "ok" if healthy else "degraded", "checks": checks, "down": down,
                      "data_source": self.services.data_source, "simulated": self.services.simulated,
                      "data_age_seconds": round(time.time() - published["published_at"], 1) if published else None,
                      "uptime_seconds": round(time.time() - PROCESS_STARTED, 1)}

    async def _redis_and_pulse(self):
        await self.services.redis.ping()
        return (await self.serving.get_pulse())[1]


async def bounded(check, seconds: float) -> tuple[str, object]:
    """("ok", its result), or ("down: <why>", None) when it failed or took longer than `seconds`."""
    try:
        return "ok", await asyncio.wait_for(check, seconds)
    except TimeoutError:
        return f"down: no answer within {seconds:g} s", None
    except Exception as exc:  # noqa: BLE001  (health reports any failure)
        return f"down: {type(exc).__name__}", None


class OpenAPIResource:
    public = True  # interface.md: no credential needed

    def __init__(self, resource_of=None, module_names: list[str] = (), prices=None):
        self._body: bytes | None = None
        self.resource_of = resource_of  # a path template's resource: the operations' credentials and prices
        self.module_names = module_names  # each module's result schema
        self.prices = prices

    async def on_get(self, req, resp):
        if self._body is None:  # the spec is fixed once routes are added
            self._body = orjson.dumps(openapi_document(self.resource_of, self.module_names, self.prices))
        resp.content_type = "application/json"
        resp.data = self._body


# Swagger UI 5 (it reads OpenAPI 3.1) is served from the `swagger-ui-py` package's static folder (see
# create_app), so /docs works offline.
DOCS_ASSETS = "/docs/assets"
DOCS_PAGE = f"""<!doctype html><html><head><meta charset="utf-8"><title>marketintel API</title>
<link rel="stylesheet" href="{DOCS_ASSETS}/swagger-ui.css"></head>
<body><div id="ui"></div><script src="{DOCS_ASSETS}/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({{url: "/openapi.json", dom_id: "#ui"}});</script>
<noscript>The machine-readable description is at <a href="/openapi.json">/openapi.json</a>.</noscript></body></html>"""


class DocsResource:
    public = True  # interface.md: no credential needed

    async def on_get(self, req, resp):
        resp.content_type = "text/html; charset=utf-8"
        resp.text = DOCS_PAGE
