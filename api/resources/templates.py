"""GET /api/v1/templates: pre-built agent templates (intel/integrations/templates.py) priced by the price list."""
from __future__ import annotations

from api import response_docs_routes as r
from api.resources.integrations import base_url
from api.services import Services
from api.spec import Documented, api_spec
from intel.integrations.templates import template_listing
from intel.registry import Module


class TemplatesResource:
    public = True  # interface.md: templates need no credential

    def __init__(self, services: Services, registry: dict[str, Module]):
        self.services = services
        self.registry = registry
        self.module_prices = {name: services.prices.module(name).price_sats for name in registry}

    @api_spec.validate(tags=["integrations"], resp=Documented(HTTP_200=r.Templates))
    async def on_get(self, req, resp):
        """Pre-built agent templates (macro risk monitor, rates watcher, crypto desk, daily briefing bot, ticker
        analyst): each with the modules it reads and how often, Python that runs one check, instructions, and its
        estimated usage: module queries and sats per day at today's prices, after the free query per module per
        day, and at list price."""
        free = self.services.settings.free_queries_per_module_per_day
        templates = template_listing(self.registry, self.module_prices, free, base_url(req, self.services))
        resp.media = {"count": len(templates), "templates": templates}
