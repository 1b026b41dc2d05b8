"""The agent-to-agent cards: /.well-known/agent.json (A2A protocol 0.2.5) and /.well-known/agent-card.json (the
current A2A release's shape), from intel/integrations/agent_cards.py over the module registry."""
from __future__ import annotations

from api import response_docs_agents as agents
from api.resources.integrations import base_url
from api.services import Services
from api.spec import Documented, api_spec
from intel.integrations.agent_cards import current_card, legacy_card
from intel.registry import Module

LEGACY_CARD_PATH = "/.well-known/agent.json"
CURRENT_CARD_PATH = "/.well-known/agent-card.json"


class _CardRoute:
    public = True  # interface.md: well-known manifests need no credential

    def __init__(self, services: Services, registry: dict[str, Module]):
        self.services = services
        self.registry = registry


class LegacyAgentCardResource(_CardRoute):
    @api_spec.validate(tags=["discovery"], resp=Documented(HTTP_200=agents.LegacyAgentCard))
    async def on_get(self, req, resp):
        """A2A agent card, protocol version 0.2.5, card version 1.0.0: the service's areas as skills, the API-key
        security scheme, push notifications (webhooks, alerts) supported, streaming and state-transition history
        not. The service is reached over its REST API (`url`), not A2A tasks."""
        resp.media = legacy_card(base_url(req, self.services), self.registry)


class CurrentAgentCardResource(_CardRoute):
    @api_spec.validate(tags=["discovery"], resp=Documented(HTTP_200=agents.CurrentAgentCard))
    async def on_get(self, req, resp):
        """The same A2A agent card in the current A2A release's shape (protocol 1.0: `supportedInterfaces`, typed
        `securitySchemes` and `securityRequirements`)."""
        resp.media = current_card(base_url(req, self.services), self.registry)
