"""Agent-to-agent (A2A) cards describing the service: its areas as skills (one per registry category, plus the
pulse, ask and alerts), the API-key security scheme, push notifications (webhooks and alert packages) but no
streaming of tasks and no task state history.

Two shapes of the same card: protocol 0.2.5 (`/.well-known/agent.json`, the version the interface names) and the
current A2A release, protocol 1.0 (`/.well-known/agent-card.json`, the shape of a2a-sdk 1.x's AgentCard). The
service does not run A2A tasks: the card is a discovery manifest whose interface URL is the REST API."""
from __future__ import annotations

from collections.abc import Mapping

CARD_VERSION = "1.0.0"
LEGACY_PROTOCOL_VERSION = "0.2.5"
CURRENT_PROTOCOL_VERSION = "1.0"
NAME = "marketintel"
DESCRIPTION = ("Market intelligence for AI agents: structured JSON on equities, rates and credit, macro, volatility, "
               "FX, commodities and crypto, regime detection and historical parallels. Pay per query in sats over "
               "Lightning; one free query per module per day; the cross-market pulse is free. Skills are served "
               "over the REST API at the card's URL (OpenAPI at /openapi.json) and over MCP at /mcp; this service "
               "does not run A2A tasks.")
API_KEY_SCHEME = "apiKey"
API_KEY_HEADER = "X-API-Key"
API_KEY_TEXT = "The key POST /api/v1/agents/register returns (free); Authorization: Bearer <key> works too."
MEDIA = ["application/json"]
CATEGORY_TITLES = {"overview": "Market overview", "equities": "Equities", "rates_credit": "Rates and credit",
                   "macro": "Macro economy", "volatility": "Volatility", "fx": "Foreign exchange",
                   "commodities": "Commodities", "crypto": "Crypto", "cross_asset": "Cross-asset",
                   "regime": "Market regime and risk", "ticker": "Ticker analysis"}
SERVICE_SKILLS = (
    {"id": "pulse", "name": "Market pulse", "tags": ["free", "snapshot"], "examples": ["GET /api/v1/pulse"],
     "description": "Free cross-market snapshot: regime, signals by asset class, correlation alerts, composite "
                    "score; rebuilt about every 2 minutes."},
    {"id": "ask", "name": "Ask a market question", "tags": ["synthesis", "natural-language"],
     "examples": ["POST /api/v1/intelligence/ask {\"question\": \"Is a recession priced in?\", \"depth\": \"quick\"}"],
     "description": "A synthesis over the published modules with a conviction score and the supporting figures, "
                    "priced by depth."},
    {"id": "alerts", "name": "Alerts and webhooks", "tags": ["push", "webhooks", "alerts"],
     "examples": ["POST /api/v1/alerts/subscribe", "POST /api/v1/webhooks/subscribe"],
     "description": "Conditional alerts, named alert packages and webhook subscriptions: events are pushed to "
                    "your callback URL, signed."},
)


def category_skills(registry: Mapping) -> list[dict]:
    """One skill per registry category, naming its modules."""
    by_category: dict[str, list[str]] = {}
    for name in sorted(registry):
        by_category.setdefault(registry[name].category, []).append(name)
    skills = []
    for category, names in sorted(by_category.items()):
        first = names[0] + ("?ticker=AAPL" if registry[names[0]].takes_ticker else "")
        skills.append({"id": category, "name": CATEGORY_TITLES.get(category, category.replace("_", " ").title()),
                       "description": f"{len(names)} modules: {', '.join(names)}.",
                       "tags": [category, "market-data"], "examples": [f"GET /api/v1/intelligence/{first}"]})
    return skills


def skills(registry: Mapping) -> list[dict]:
    return [*category_skills(registry), *(dict(s) for s in SERVICE_SKILLS)]


def legacy_card(base_url: str, registry: Mapping) -> dict:
    """The card in A2A protocol 0.2.5's shape (camelCase JSON)."""
    return {
        "protocolVersion": LEGACY_PROTOCOL_VERSION, "name": NAME, "description": DESCRIPTION,
        "url": f"{base_url}/api/v1", "preferredTransport": "HTTP+JSON", "version": CARD_VERSION,
        "provider": {"organization": NAME, "url": base_url},
        "documentationUrl": f"{base_url}/docs",
        "capabilities": {"streaming": False, "pushNotifications": True, "stateTransitionHistory": False},
        "securitySchemes": {API_KEY_SCHEME: {"type": "apiKey", "in": "header", "name": API_KEY_HEADER,
                                             "description": API_KEY_TEXT}},
        "security": [{API_KEY_SCHEME: []}],
        "defaultInputModes": MEDIA, "defaultOutputModes": MEDIA,
        "skills": skills(registry),
    }


def current_card(base_url: str, registry: Mapping) -> dict:
    """The card in the current A2A release's shape (protocol 1.0: interfaces, typed security schemes and
    requirements; no state history capability)."""
    return {
        "name": NAME, "description": DESCRIPTION, "version": CARD_VERSION,
        "supportedInterfaces": [{"url": f"{base_url}/api/v1", "protocolBinding": "HTTP+JSON",
                                 "protocolVersion": CURRENT_PROTOCOL_VERSION}],
        "provider": {"organization": NAME, "url": base_url},
        "documentationUrl": f"{base_url}/docs",
        "capabilities": {"streaming": False, "pushNotifications": True},
        "securitySchemes": {API_KEY_SCHEME: {"apiKeySecurityScheme": {"location": "header", "name": API_KEY_HEADER,
                                                                      "description": API_KEY_TEXT}}},
        "securityRequirements": [{"schemes": {API_KEY_SCHEME: {}}}],  # no scopes: as the SDK writes it
        "defaultInputModes": MEDIA, "defaultOutputModes": MEDIA,
        "skills": skills(registry),
    }
