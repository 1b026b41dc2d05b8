"""The A2A cards, checked with the a2a-sdk's own types.

/.well-known/agent-card.json is in the current release's shape (a2a-sdk 1.3.0, protocol 1.0): it parses into the
SDK's AgentCard protobuf with unknown fields refused, and serializes back to the same JSON.

/.well-known/agent.json is protocol 0.2.5. The SDK's oldest types are protocol 0.3's (a2a.compat.v0_3.types, pydantic,
unknown fields tolerated), a superset of 0.2.5's card fields (0.3 added `signatures`, which we do not send; the
fields we send are in both). So the card validates as a 0.3 AgentCard, and dumping the parsed model back gives the
same JSON: every field we send is one the SDK knows, with the type it expects, nothing dropped as unknown."""
from __future__ import annotations

from a2a.compat.v0_3 import types as v0_3
from a2a.types import AgentCard
from google.protobuf.json_format import MessageToDict, ParseDict

from intel.registry import modules

BASE = "http://falconframework.org"  # falcon.testing's address: the card names where it was reached


def test_agent_json_is_a_0_2_5_card(unpublished_client):
    resp = unpublished_client.simulate_get("/.well-known/agent.json")
    assert resp.status_code == 200, resp.text
    card = resp.json
    parsed = v0_3.AgentCard.model_validate(card)
    assert parsed.model_dump(mode="json", exclude_none=True, by_alias=True) == card
    assert card["protocolVersion"] == "0.2.5" and card["version"] == "1.0.0"
    assert card["capabilities"] == {"pushNotifications": True, "streaming": False, "stateTransitionHistory": False}
    scheme = parsed.security_schemes["apiKey"].root
    assert isinstance(scheme, v0_3.APIKeySecurityScheme) and scheme.in_ == v0_3.In.header
    assert scheme.name == "X-API-Key" and card["security"] == [{"apiKey": []}]
    assert card["url"] == f"{BASE}/api/v1"
    categories = {m.category for m in modules().values()}
    skill_ids = {s["id"] for s in card["skills"]}
    assert categories <= skill_ids and {"pulse", "ask", "alerts"} <= skill_ids


def test_agent_card_json_is_the_current_release(unpublished_client):
    resp = unpublished_client.simulate_get("/.well-known/agent-card.json")
    assert resp.status_code == 200, resp.text
    card = resp.json
    parsed = ParseDict(card, AgentCard(), ignore_unknown_fields=False)  # an unknown field raises ParseError
    assert MessageToDict(parsed) == card
    assert parsed.version == "1.0.0" and parsed.capabilities.push_notifications
    assert not parsed.capabilities.streaming
    assert parsed.supported_interfaces[0].url == f"{BASE}/api/v1"
    assert parsed.security_schemes["apiKey"].api_key_security_scheme.name == "X-API-Key"
    assert list(parsed.security_requirements[0].schemes) == ["apiKey"]
    assert {s.id for s in parsed.skills} == {s["id"] for s in unpublished_client.simulate_get(
        "/.well-known/agent.json").json["skills"]}
