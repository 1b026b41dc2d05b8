"""The MCP manifest, health and server card, Falcon routes beside the SDK's transport."""
from __future__ import annotations

import asyncio

import falcon.testing
import pytest

from api.resources.mcp_info import HEALTH_PATHS, SERVER_CARD_PATHS
from tests.api.agent_helpers import auth, register, set_tier
from tests.api.test_mcp_endpoint import run


@pytest.fixture
def asgi(settings, services):
    from api.app import create_app

    return create_app(settings, services)


def test_manifest_by_caller(asgi, services):
    client = falcon.testing.TestClient(asgi)
    key, agent = register(client, "institutional")
    set_tier(services, agent["agent_id"], "institutional")
    anonymous, keyed = client.simulate_get("/mcp").json, client.simulate_get("/mcp", headers=auth(key)).json
    assert {k: anonymous[k] for k in ("name", "version", "protocolVersion", "transport")} == {
        "name": "marketintel", "version": "1.0.0", "protocolVersion": "2025-03-26", "transport": "streamable-http"}
    assert len(anonymous["tools"]) == 4 and anonymous["tools_total"] == 75 and anonymous["your_tier"] == "free"
    assert anonymous["tools_by_tier"] == {"free": 4, "premium": 73, "institutional": 75}
    assert anonymous["register"]["path"] == "/api/v1/agents/register" and anonymous["docs"] == "/docs"
    assert {s.get("name") for s in anonymous["auth"]["schemes"]} >= {"X-API-Key"}
    assert len(keyed["tools"]) == 75 and keyed["your_tier"] == "institutional"


def test_health_is_up_when_the_transport_lists_tools_and_down_without_it(asgi, services, monkeypatch):
    # what is judged is whether tools/list answers, not how fast: a machine busy with the whole suite took over the
    # production bound of 1 s for the first listing
    monkeypatch.setattr(services.settings, "health_check_timeout_s", 20.0)

    async def scenario(conductor):
        return [await conductor.simulate_get(path) for path in HEALTH_PATHS]

    for resp in run(asgi, scenario):  # the lifespan runs the SDK's manager
        assert resp.status_code == 200 and resp.json["status"] == "up", resp.text
        assert resp.json["checks"]["mcp"] == "ok: 4 tools listed anonymously"
    endpoint = asgi._router.find("/mcp")[0].endpoint
    assert endpoint.manager is None  # after the lifespan no manager runs: the probe the route runs cannot list
    assert asyncio.run(endpoint.lists_tools()) is None


def test_the_server_card_at_every_discovery_path(asgi):
    client = falcon.testing.TestClient(asgi)
    cards = [client.simulate_get(path).json for path in SERVER_CARD_PATHS]
    assert cards[0] == cards[1] == cards[2]
    card = cards[0]
    assert card["serverInfo"] == {"name": "marketintel", "title": "Market intelligence", "version": "1.0.0"}
    assert card["transport"] == {"type": "streamable-http", "endpoint": "/mcp", "stateless": True}
    assert card["capabilities"] == {"tools": {"listChanged": False}}
    assert card["tools"]["total"] == 75 and card["tools"]["tiers"]["institutional"] == ["ask", "historical_parallels"]


def test_the_openapi_document_describes_the_mcp_routes(asgi):
    paths = falcon.testing.TestClient(asgi).simulate_get("/openapi.json").json["paths"]
    assert {"/mcp", *HEALTH_PATHS, *SERVER_CARD_PATHS} <= set(paths)
