"""/api/v1/integrations/...: the tools a tier sees (asked for, or the caller's key's), as chat-completions
definitions with valid schemas; the function-calling, chain and crew configs with code that compiles."""
from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from tests.api.agent_helpers import auth, register, set_tier

TOOLS = "/api/v1/integrations/functioncalling/tools"
CONFIGS = ("/api/v1/integrations/functioncalling/config", "/api/v1/integrations/chain/config",
           "/api/v1/integrations/crew/config")
FREE = {"get_pulse", "list_modules", "market_intelligence", "economic_calendar"}


@pytest.mark.parametrize(("tier", "count"), [(None, 4), ("free", 4), ("premium", 73), ("institutional", 75)])
def test_tools_by_tier(unpublished_client, tier, count):
    resp = unpublished_client.simulate_get(TOOLS, params={"tier": tier} if tier else None)
    assert resp.status_code == 200, resp.text
    body = resp.json
    assert body["tier"] == (tier or "free") and body["count"] == count == len(body["tools"])
    assert body["tools_total"] == 75
    names = {t["function"]["name"] for t in body["tools"]}
    assert set(body["routes"]) == names
    if count == 4:
        assert names == FREE
    assert ("ask" in names) == (tier == "institutional")
    for tool in body["tools"]:
        assert tool["type"] == "function" and tool["function"]["description"]
        Draft202012Validator.check_schema(tool["function"]["parameters"])


def test_the_keys_tier_is_the_default(unpublished_client, services):
    key, agent = register(unpublished_client)
    assert unpublished_client.simulate_get(TOOLS, headers=auth(key)).json["count"] == 4
    set_tier(services, agent["agent_id"], "premium")
    body = unpublished_client.simulate_get(TOOLS, headers=auth(key)).json
    assert body["tier"] == "premium" and body["count"] == 73
    # asking for another tier's listing is documentation, not access: allowed
    assert unpublished_client.simulate_get(TOOLS, params={"tier": "free"}, headers=auth(key)).json["count"] == 4


def test_bad_tier_is_422_and_bad_key_401(unpublished_client):
    resp = unpublished_client.simulate_get(TOOLS, params={"tier": "gold"})
    assert resp.status_code == 422 and resp.json["detail"][0]["loc"] == ["query", "tier"]
    resp = unpublished_client.simulate_get(TOOLS, headers={"X-API-Key": "mi_not_a_key"})
    assert resp.status_code == 401 and resp.json["error"]["code"] == "invalid_api_key"


@pytest.mark.parametrize("path", CONFIGS)
@pytest.mark.parametrize("tier", ["free", "institutional"])
def test_configs_carry_compiling_code(unpublished_client, path, tier):
    resp = unpublished_client.simulate_get(path, params={"tier": tier})
    assert resp.status_code == 200, resp.text
    body = resp.json
    assert body["tier"] == tier
    code = body["example_code"]["python"]
    compile(code, path, "exec")
    assert "http://falconframework.org" in code  # the address the caller reached (falcon.testing's host)


def test_function_calling_config(unpublished_client):
    body = unpublished_client.simulate_get(CONFIGS[0], params={"tier": "premium"}).json
    assert body["count"] == 73 and "get_pulse" in body["system_prompt"]
    assert body["routes"]["vix"] == {"method": "GET", "path": "/api/v1/intelligence/vix", "arguments_in": "query"}
    assert "from openai import OpenAI" in body["example_code"]["python"]


def test_crew_config_keeps_to_the_tier(unpublished_client):
    free = unpublished_client.simulate_get(CONFIGS[2]).json
    assert {t["name"] for t in free["tools"]} <= FREE
    assert [a["id"] for a in free["agents"]] == ["macro_strategist"]  # the others have no free tool of their own
    full = unpublished_client.simulate_get(CONFIGS[2], params={"tier": "institutional"}).json
    assert len(full["agents"]) == 3 and len(full["tasks"]) == 3


def test_openapi_describes_the_routes(unpublished_client):
    paths = unpublished_client.simulate_get("/openapi.json").json["paths"]
    for path in (TOOLS, *CONFIGS, "/api/v1/templates", "/.well-known/agent.json", "/.well-known/agent-card.json"):
        assert path in paths, path
    assert "tier" in {p["name"] for p in paths[TOOLS]["get"]["parameters"]}
