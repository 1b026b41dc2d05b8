"""One function-calling round trip, end to end: the example code GET /api/v1/integrations/functioncalling/config
serves runs with the real `openai` client against a local chat-completions server; the model asks for a tool, the
example code runs it against this service (the real app through falcon.testing, reached by the example's own
`httpx.Client`), and the result goes back to the model in the next request's messages."""
from __future__ import annotations

import json

import httpx
import pytest
from openai import OpenAI

from tests.api.agent_helpers import auth, fund, register, set_tier
from tests.chat_server import ChatServer

CONFIG = "/api/v1/integrations/functioncalling/config"
HOST = "http://falconframework.org"


class ToolCallingChatServer(ChatServer):
    """Asks for `calls` (tool name, arguments) in its first reply; once tool results are in the messages, answers
    with the module and date each result states, so the answer shows the results reached the model."""

    def __init__(self, calls: list[tuple[str, dict]]):
        super().__init__()
        self.calls = calls

    def payload(self, body: dict) -> dict:
        results = [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]
        if results:
            text = "; ".join(f"{r.get('module')} as of {r.get('as_of')}" for r in results)
            message, finish = {"role": "assistant", "content": text}, "stop"
        else:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                for i, (name, args) in enumerate(self.calls)]}
            finish = "tool_calls"
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1_700_000_000, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 40, "total_tokens": 140}}


def service_client(client, key: str) -> httpx.Client:
    """An httpx client whose requests the app under test answers (falcon.testing), as the example code expects."""

    def answer(request: httpx.Request) -> httpx.Response:
        result = client.simulate_request(request.method, request.url.path, query_string=request.url.query.decode(),
                                          headers=dict(request.headers), body=request.content or None)
        return httpx.Response(result.status_code, headers=result.headers, content=result.content)

    return httpx.Client(transport=httpx.MockTransport(answer), base_url=HOST, headers=auth(key))


def example_run(client, key: str):
    config = client.simulate_get(CONFIG, headers=auth(key)).json
    namespace = {"__name__": "marketintel_example"}  # not __main__: define the functions, run nothing
    exec(compile(config["example_code"]["python"], "functioncalling_example.py", "exec"), namespace)
    return config, namespace["run"]


def test_a_free_tool_round_trip(client):
    key, _ = register(client)
    config, run = example_run(client, key)
    with ToolCallingChatServer([("market_intelligence", {"format": "full"})]) as chat:
        answer, messages = run(OpenAI(base_url=chat.url, api_key="local"), service_client(client, key),
                               "What is the market telling us?", "local-model")
    first, second = chat.requests
    assert first["tools"] == config["tools"] and len(first["tools"]) == 4  # the free tier's tools
    assert first["messages"][0] == {"role": "system", "content": config["system_prompt"]}
    assert second["messages"][-2]["tool_calls"][0]["function"]["name"] == "market_intelligence"
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_0"
    result = json.loads(tool_message["content"])
    assert result["module"] == "market_intelligence" and result["_meta"]["charged_sats"] == 0
    assert result["_meta"]["simulated"] is True  # the published payloads are computed on simulated data
    assert answer == f"market_intelligence as of {result['as_of']}"
    assert messages[-1] == {"role": "assistant", "content": answer}


@pytest.mark.parametrize("calls", [[("vix", {"format": "compact"}), ("vix", {"format": "compact"})]])
def test_paid_tool_calls_are_charged_as_the_rest_route(client, services, calls):
    """A premium key: the first vix call is the free query of the day, the second costs the price once."""
    key, agent = register(client, "premium-agent")
    set_tier(services, agent["agent_id"], "premium")
    fund(client, key, 1000)
    config, run = example_run(client, key)
    assert len(config["tools"]) == 73
    with ToolCallingChatServer(calls) as chat:
        answer, _ = run(OpenAI(base_url=chat.url, api_key="local"), service_client(client, key), "VIX?", "m")
    results = [json.loads(m["content"]) for m in chat.requests[-1]["messages"] if m["role"] == "tool"]
    assert [r["_meta"]["charged_sats"] for r in results] == [0, services.prices.module("vix").price_sats]
    balance = client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json
    assert balance["balance_sats"] == 1000 - services.prices.module("vix").price_sats
    assert answer.count("vix as of") == 2
