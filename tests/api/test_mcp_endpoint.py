"""The MCP endpoint in process: JSON-RPC through the SDK's streamable HTTP transport behind the ASGI dispatcher,
on the real collaborators (embedded Redis, a SQLite ledger, the dev Lightning node, published sim payloads)."""
from __future__ import annotations

import asyncio
import time

import falcon.testing
import jsonschema
import pytest
import redis
from sqlalchemy import text

from api.mcp.tools import FREE_TOOLS
from intel.registry import modules
from tests.api.agent_helpers import auth, fund, register, set_tier
from tests.api.conftest import publish
from tests.api.test_foresight_routes import parallels_payload  # noqa: F401, F811 (a fixture)
from warehouse.cache import ServingCache

ACCEPT = "application/json, text/event-stream"


@pytest.fixture
def asgi(settings, services, computed_payloads):
    from api.app import create_app

    publish(settings.effective_redis_url, computed_payloads)
    return create_app(settings, services)


def run(app, scenario):
    async def go():
        async with falcon.testing.ASGIConductor(app) as conductor:
            return await scenario(conductor)
    return asyncio.run(go())


async def rpc(conductor, method: str, params: dict | None = None, key: str | None = None,
              version: str = "2025-06-18", rpc_id: int = 1):
    headers = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": version,
               **(auth(key) if key else {})}
    body = {"jsonrpc": "2.0", "id": rpc_id, "method": method, **({"params": params} if params is not None else {})}
    return await conductor.simulate_post("/mcp", json=body, headers=headers)


def call(conductor, tool: str, arguments: dict | None = None, key: str | None = None, version: str = "2025-06-18"):
    return rpc(conductor, "tools/call", {"name": tool, "arguments": arguments or {}}, key, version)


def balance(services, agent_id: str) -> tuple[int, int, int]:
    """(the agent's balance, the sum of its balance entries, its debits): the ledger's own figures."""
    with services.engine.connect() as db:
        agent = db.execute(text("SELECT id, balance_sats FROM agents WHERE agent_id = :a"), {"a": agent_id}).one()
        total, debits = db.execute(text(
            "SELECT COALESCE(SUM(amount_sats), 0), COALESCE(SUM(CASE WHEN amount_sats < 0 THEN 1 ELSE 0 END), 0) "
            "FROM ledger_entries WHERE agent_id = :p AND pool = 'balance'"), {"p": agent.id}).one()
    return agent.balance_sats, total, debits


def test_initialize_negotiates_the_interface_version_and_counter_offers_older_ones(asgi):
    async def scenario(conductor):
        params = {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        current = await rpc(conductor, "initialize", params)
        old = await rpc(conductor, "initialize", {**params, "protocolVersion": "2024-11-05"})
        return current, old

    current, old = run(asgi, scenario)
    assert current.status_code == 200, current.text
    result = current.json["result"]
    assert result["protocolVersion"] == "2025-03-26"
    assert result["serverInfo"]["name"] == "marketintel" and result["serverInfo"]["version"] == "1.0.0"
    assert "tools" in result["capabilities"]
    assert old.json["result"]["protocolVersion"] == "2025-11-25"


def test_tools_list_by_tier(asgi, services):
    client = falcon.testing.TestClient(asgi)
    premium, premium_agent = register(client, "premium-agent")
    set_tier(services, premium_agent["agent_id"], "premium")
    institutional, institutional_agent = register(client, "institutional-agent")
    set_tier(services, institutional_agent["agent_id"], "institutional")

    async def scenario(conductor):
        return [(await rpc(conductor, "tools/list", key=key)).json["result"]["tools"]
                for key in (None, premium, institutional)]

    anonymous, premium_tools, institutional_tools = run(asgi, scenario)
    assert [t["name"] for t in anonymous] == list(FREE_TOOLS)
    assert len(premium_tools) == 73 and "ask" not in {t["name"] for t in premium_tools}
    assert len(institutional_tools) == 75
    by_name = {t["name"]: t for t in institutional_tools}
    assert by_name["technical_analysis"]["inputSchema"]["required"] == ["ticker"]
    assert by_name["market_intelligence"]["inputSchema"]["properties"]["format"]["enum"] == [
        "full", "compact", "prompt", "agent"]
    assert by_name["ask"]["inputSchema"]["required"] == ["question"]
    # a module tool says what it answers, field by field; the others answer shapes of their own
    typed = {name for name, t in by_name.items() if "outputSchema" in t}
    assert typed == set(modules()) and by_name["vix"]["outputSchema"]["properties"]["module"]["const"] == "vix"
    # annotations on every tool: the free ones read only, a priced one debits the balance (a repeat pays again)
    assert all(t["annotations"]["destructiveHint"] is False for t in institutional_tools)
    assert by_name["get_pulse"]["annotations"] | {"title": None} == {
        "title": None, "readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
    ask = by_name["ask"]["annotations"]
    assert ask["readOnlyHint"] is False and ask["idempotentHint"] is False
    # one catalog: the function-calling listing serves the same tools, schemas and descriptions
    listed = client.simulate_get("/api/v1/integrations/functioncalling/tools",
                                 params={"tier": "institutional"}).json["tools"]
    assert {t["function"]["name"]: (t["function"]["description"], t["function"]["parameters"]) for t in listed} == {
        t["name"]: (t["description"], t["inputSchema"]) for t in institutional_tools}


def test_pulse_and_a_free_module_answer_structured_content_and_prompt_text(asgi):
    async def scenario(conductor):
        return (await call(conductor, "get_pulse"), await call(conductor, "market_intelligence"),
                await call(conductor, "get_pulse", version="2025-03-26"))

    pulse, module, legacy = (r.json["result"] for r in run(asgi, scenario))
    assert not pulse["isError"] and pulse["structuredContent"]["_meta"]["charged_sats"] == 0
    assert pulse["content"][0]["type"] == "text" and pulse["content"][0]["text"].startswith("## pulse")
    assert module["structuredContent"]["module"] == "market_intelligence"
    assert module["structuredContent"]["_meta"]["paid_with"] == "free_allowance"
    assert module["content"][0]["text"].startswith("## market_intelligence")
    # what a module tool answers, in every format, fits the outputSchema tools/list gives it
    client = falcon.testing.TestClient(asgi)
    key, _ = register(client, "schema-reader")
    fund(client, key, 10_000)

    async def formats(conductor):
        schema = (await rpc(conductor, "tools/list", key=key)).json["result"]["tools"]
        schema = next(t["outputSchema"] for t in schema if t["name"] == "market_intelligence")
        return schema, [(await call(conductor, "market_intelligence", {"format": f}, key)).json["result"]
                        for f in ("full", "compact", "prompt", "agent")]

    schema, results = run(asgi, formats)
    for result in results:
        assert not result["isError"]
        jsonschema.validate(result["structuredContent"], schema)
    # 2025-03-26 predates structuredContent: the JSON body rides as a second text block too
    assert legacy["content"][0]["text"].startswith("## pulse") and '"_meta"' in legacy["content"][1]["text"]


def test_a_paid_module_is_debited_once_and_an_unfunded_key_gets_the_invoice(asgi, services):
    client = falcon.testing.TestClient(asgi)
    key, agent = register(client, "payer")
    set_tier(services, agent["agent_id"], "premium")
    fund(client, key, 1000)
    broke, broke_agent = register(client, "broke")
    set_tier(services, broke_agent["agent_id"], "premium")

    async def scenario(conductor):
        free = await call(conductor, "yield_curve", key=key)
        paid = await call(conductor, "yield_curve", key=key)
        await call(conductor, "yield_curve", key=broke)
        unpaid = await call(conductor, "yield_curve", key=broke)
        return free, paid, unpaid

    free, paid, unpaid = (r.json["result"] for r in run(asgi, scenario))
    assert free["structuredContent"]["_meta"]["charged_sats"] == 0
    meta = paid["structuredContent"]["_meta"]
    assert meta["charged_sats"] == 50 and meta["balance_sats"] == 950 and meta["paid_with"] == "balance"
    assert balance(services, agent["agent_id"]) == (950, 950, 1)  # one debit; the entries sum to the balance
    assert unpaid["isError"]
    error = unpaid["structuredContent"]["error"]
    assert unpaid["structuredContent"]["status"] == 402 and error["code"] == "payment_required"
    assert error["invoice"]["payment_request"] and error["topup"]["path"] == "/api/v1/agents/topup"
    assert error["www_authenticate"].startswith("L402 ") and error["l402"]["macaroon"]
    assert balance(services, broke_agent["agent_id"]) == (0, 0, 0)


def test_a_call_goes_through_the_apps_middleware_and_its_request_id_is_the_ledger_reference(asgi, services):
    client = falcon.testing.TestClient(asgi)
    key, agent = register(client, "traced")
    set_tier(services, agent["agent_id"], "premium")
    fund(client, key, 1000)

    async def scenario(conductor):
        await call(conductor, "yield_curve", key=key)  # the day's free query
        return await call(conductor, "yield_curve", key=key)

    paid = run(asgi, scenario)
    request_id = paid.headers["X-Request-ID"]
    assert paid.json["result"]["structuredContent"]["_meta"]["request_id"] == request_id
    assert paid.headers["X-Data-Source"] == "sim" and paid.headers["X-Simulated"] == "true"
    with services.engine.connect() as db:
        charged = db.execute(text("SELECT amount_sats FROM ledger_entries WHERE reference = :r"),
                             {"r": request_id}).scalars().all()
    assert charged == [-50]


def test_no_event_stream_and_no_sessions_to_delete(asgi):
    async def scenario(conductor):
        return (await conductor.simulate_get("/mcp", headers={"Accept": "text/event-stream"}),
                await conductor.simulate_delete("/mcp", headers={"Accept": ACCEPT}))

    stream, delete = run(asgi, scenario)
    assert stream.status_code == 405 and stream.json["error"]["code"] == "no_event_stream"
    assert delete.status_code == 405 and "POST" in delete.headers["Allow"]


@pytest.fixture
def institutional(asgi, services):
    key, agent = register(falcon.testing.TestClient(asgi), "institution")
    set_tier(services, agent["agent_id"], "institutional")
    fund(falcon.testing.TestClient(asgi), key, 10_000)
    return key, agent


def test_ask_is_charged_by_depth_and_answers_its_request_to_poll(asgi, services, settings, institutional,
                                                                 monkeypatch):
    monkeypatch.setattr(settings, "ask_window_quick_s", 0.0)  # no worker runs here: the 202 comes at once
    key, agent = institutional

    async def scenario(conductor):
        return await call(conductor, "ask", {"question": "Is the yield curve inverted?", "depth": "quick"}, key=key)

    result = run(asgi, scenario).json["result"]
    body = result["structuredContent"]
    assert not result["isError"] and body["status"] == "queued" and body["poll"].endswith(body["request_id"])
    price = services.prices.ask("quick").price_sats
    assert balance(services, agent["agent_id"]) == (10_000 - price, 10_000 - price, 1)  # no free allowance


def test_historical_parallels_answers_the_published_product(asgi, services, settings, institutional,
                                                             parallels_payload):  # noqa: F811
    ServingCache(redis.Redis.from_url(settings.effective_redis_url)).publish_products(
        [("parallels", parallels_payload, "sim")], True, time.time())
    key, agent = institutional

    async def scenario(conductor):
        first = await call(conductor, "historical_parallels", {"top_n": 3}, key=key)
        second = await call(conductor, "historical_parallels", {"top_n": 3}, key=key)
        refused = await call(conductor, "historical_parallels", {"conditions": "locusts"}, key=key)
        return first, second, refused

    first, second, refused = (r.json["result"] for r in run(asgi, scenario))
    assert not first["isError"] and len(first["structuredContent"]["results"]) == 3
    assert first["structuredContent"]["_meta"]["charged_sats"] == 0  # the day's free query
    price = services.prices.product("parallels").price_sats
    assert second["structuredContent"]["_meta"]["charged_sats"] == price
    assert refused["isError"] and refused["structuredContent"]["detail"][0]["loc"] == ["arguments", "conditions"]
    assert balance(services, agent["agent_id"]) == (10_000 - price, 10_000 - price, 1)


def test_a_tool_above_the_tier_names_the_tier_and_a_bad_key_is_401(asgi):
    async def scenario(conductor):
        hidden = await call(conductor, "yield_curve")
        bad = await rpc(conductor, "tools/list", key="not-a-key")
        unknown = await call(conductor, "no_such_tool")
        invalid = await call(conductor, "market_intelligence", {"format": "poster"})
        return hidden, bad, unknown, invalid

    hidden, bad, unknown, invalid = run(asgi, scenario)
    result = hidden.json["result"]
    assert result["isError"] and result["structuredContent"]["error"]["required_tier"] == "premium"
    assert "premium" in result["content"][0]["text"]
    assert bad.status_code == 401 and bad.json["error"]["code"] == "invalid_api_key"
    assert unknown.json["error"]["code"] == -32602
    detail = invalid.json["result"]["structuredContent"]["detail"]
    assert invalid.json["result"]["isError"] and detail[0]["loc"] == ["arguments", "format"]


def test_answers_are_json_whatever_accept_says(asgi):
    async def scenario(conductor):
        body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
        return [await conductor.simulate_post("/mcp", json=body, headers=headers)
                for headers in ({}, {"Accept": "text/html"}, {"Accept": "*/*"})]

    for resp in run(asgi, scenario):
        assert resp.status_code == 200 and resp.headers["content-type"].startswith("application/json"), resp.text
        assert resp.json["id"] == 7 and len(resp.json["result"]["tools"]) == 4


class Dispatched:
    """SDK server middleware recording each method the server dispatches."""

    def __init__(self):
        self.methods = []

    async def __call__(self, ctx, call_next):
        self.methods.append(ctx.method)
        return await call_next(ctx)


def test_a_2026_call_with_arguments_dispatches_the_call_alone(asgi):
    """At 2026-07-28 the transport checks a call's arguments against its tool's schema: it takes the schema from the
    catalog, not from a `tools/list` run on every call."""
    dispatched = Dispatched()
    asgi._router.find("/mcp")[0].endpoint.server.middleware.append(dispatched)

    async def scenario(conductor):
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "market_intelligence", "arguments": {"format": "compact"}, "_meta": meta}}
        headers = {"Accept": ACCEPT, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                   "Mcp-Name": "market_intelligence"}
        return await conductor.simulate_post("/mcp", json=body, headers=headers)

    resp = run(asgi, scenario)
    assert resp.status_code == 200, resp.text
    result = resp.json["result"]
    assert result["resultType"] == "complete" and not result["isError"]
    assert result["structuredContent"]["_meta"]["charged_sats"] == 0
    assert dispatched.methods == ["tools/call"]


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
def test_a_result_in_wire_form_reaches_the_wire_as_its_model_would(version):
    """success_result hands the SDK a dict: shaped for each version, it is what the CallToolResult model gives."""
    import mcp_types
    from mcp_types.methods import serialize_server_result

    from api.mcp.calls import success_result

    wire = success_result({"regime": "expansion", "score": 0.25, "_meta": {"charged_sats": 0}}, "## text", version)
    model = mcp_types.CallToolResult.model_validate(wire).model_dump(mode="json", by_alias=True, exclude_none=True)
    assert serialize_server_result("tools/call", version, wire) == serialize_server_result("tools/call", version, model)
