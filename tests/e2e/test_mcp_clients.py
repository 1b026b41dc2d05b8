"""Two independent MCP clients against real gunicorn (uvicorn workers, the ASGI lifespan running the SDK's session
manager): the official SDK's streamable HTTP client, by the initialize handshake and by its default discovery
probe, and fastmcp's client. Each: tools/list (4 anonymously, 73 with a premium key), tools/call for the pulse, a
free module, a paid module debited once (read back from the ledger), and payment required at zero balance."""
from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import httpx
import httpx2
import pytest
import redis
from sqlalchemy import text

from api.mcp.tools import FREE_TOOLS
from tests.api.conftest import computed_payloads, publish  # noqa: F401  (the fixture, shared with tests/api)
from tests.e2e.paid_load import migrate, register_and_fund, service_env, start_gunicorn, stop
from warehouse.ledger import make_engine

pytestmark = pytest.mark.e2e
PAID = "yield_curve"  # a standard module (50 sats) outside the free tier's tools
FUNDING = 1000


@pytest.fixture(scope="module")
def stack(request, tmp_path_factory, redis_server):
    home = tmp_path_factory.mktemp("mcp-clients")
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    # each client below calls from an address of its own (X-Forwarded-For, trusted here), so each has its own free
    # query of a module a day, as separate agents' machines would
    env = {**service_env(home, redis_server.url, None), "MI_TRUST_FORWARDED_FOR": "true"}
    from marketintel.settings import get_settings

    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            if key.startswith("MI_"):
                patch.setenv(key, value)  # the tests' own settings (the dev Lightning node, the ledger) match
        get_settings.cache_clear()
        process = None
        engine = make_engine(get_settings().sqlalchemy_url)
        try:
            migrate(env)
            publish(redis_server.url, request.getfixturevalue("computed_payloads"))
            process, base = start_gunicorn(env, workers=2, log=home / "gunicorn.log")
            yield base, env, engine
        finally:
            if process is not None:
                stop(process)
            engine.dispose()
            client.flushdb()
            get_settings.cache_clear()


def premium_agent(base: str, env: dict) -> dict:
    """An agent funded over the API, made premium as an operator does (`marketintel set-tier`)."""
    agent = register_and_fund(base, 1, FUNDING)[0]
    subprocess.run([str(Path(sys.executable).parent / "marketintel"), "set-tier", agent["agent_id"], "premium"],
                   env=env, check=True, capture_output=True)
    return agent


def broke_premium_agent(base: str, env: dict) -> dict:
    reg = httpx.post(f"{base}/api/v1/agents/register", json={"name": "broke"}).json()
    subprocess.run([str(Path(sys.executable).parent / "marketintel"), "set-tier", reg["agent_id"], "premium"],
                   env=env, check=True, capture_output=True)
    return {"agent_id": reg["agent_id"], "key": reg["api_key"]}


def ledger(engine, agent_id: str) -> tuple[int, int, int]:
    """(balance, the sum of its balance entries, the number of its debits of PAID)."""
    with engine.connect() as db:
        agent = db.execute(text("SELECT id, balance_sats FROM agents WHERE agent_id = :a"), {"a": agent_id}).one()
        total = db.execute(text("SELECT COALESCE(SUM(amount_sats), 0) FROM ledger_entries WHERE agent_id = :p "
                                "AND pool = 'balance'"), {"p": agent.id}).scalar()
        debits = db.execute(text("SELECT COUNT(*) FROM ledger_entries WHERE agent_id = :p AND amount_sats < 0 "
                                 "AND module = :m"), {"p": agent.id, "m": PAID}).scalar()
    return agent.balance_sats, total, debits


async def sdk_session(base: str, key: str | None, mode: str, address: str):
    """What the official SDK's client sees: (negotiated version, server info, tool names, the call results)."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"X-Forwarded-For": address, **({"X-API-Key": key} if key else {})}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(f"{base}/mcp", http_client=http), mode=mode) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            calls = {}
            if key:
                for label, name in (("pulse", "get_pulse"), ("free", PAID), ("paid", PAID), ("again", PAID)):
                    calls[label] = await client.call_tool(name, {})
            else:
                calls["pulse"] = await client.call_tool("get_pulse", {})
                calls["free"] = await client.call_tool("economic_calendar", {})
            return client.protocol_version, client.server_info, tools, calls


async def fastmcp_session(base: str, key: str | None, address: str):
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

    headers = {"X-Forwarded-For": address, **({"X-API-Key": key} if key else {})}
    transport = StreamableHttpTransport(f"{base}/mcp", headers=headers)
    async with Client(transport) as client:
        tools = [t.name for t in await client.list_tools()]
        calls = {}
        if key:
            for label, name in (("pulse", "get_pulse"), ("free", PAID), ("paid", PAID), ("again", PAID)):
                calls[label] = await client.call_tool(name, {}, raise_on_error=False)
        else:
            calls["pulse"] = await client.call_tool("get_pulse", {}, raise_on_error=False)
            calls["free"] = await client.call_tool("economic_calendar", {}, raise_on_error=False)
        return tools, calls


def check_keyed_calls(calls: dict, engine, agent_id: str, expect_paid: bool) -> None:
    assert calls["pulse"].structured_content["_meta"]["charged_sats"] == 0
    assert calls["free"].structured_content["_meta"]["paid_with"] == "free_allowance"
    assert calls["free"].content[0].text.startswith(f"## {PAID}")
    if expect_paid:
        assert calls["paid"].structured_content["_meta"]["charged_sats"] == 50
        assert calls["again"].structured_content["_meta"]["balance_sats"] == FUNDING - 100
        assert ledger(engine, agent_id) == (FUNDING - 100, FUNDING - 100, 2)  # each paid call debited once
    else:
        for label in ("paid", "again"):
            assert calls[label].is_error
            error = calls[label].structured_content["error"]
            assert calls[label].structured_content["status"] == 402 and error["code"] == "payment_required"
            assert error["invoice"]["payment_request"] and error["www_authenticate"].startswith("L402 ")
        assert ledger(engine, agent_id) == (0, 0, 0)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_official_sdk_client(stack, mode):
    base, env, engine = stack
    address = {"legacy": "192.0.2.1", "auto": "192.0.2.2"}[mode]  # documentation addresses (RFC 5737)
    version, info, tools, calls = asyncio.run(sdk_session(base, None, mode, address))
    assert version == ("2025-11-25" if mode == "legacy" else "2026-07-28")  # the SDK's newest of each era
    assert info is None or (info.name, info.version) == ("marketintel", "1.0.0")
    assert tools == list(FREE_TOOLS)
    assert not calls["pulse"].is_error and not calls["free"].is_error
    payer, broke = premium_agent(base, env), broke_premium_agent(base, env)
    _, _, tools, calls = asyncio.run(sdk_session(base, payer["key"], mode, address))
    assert len(tools) == 73
    check_keyed_calls(calls, engine, payer["agent_id"], expect_paid=True)
    _, _, _, calls = asyncio.run(sdk_session(base, broke["key"], mode, address))
    check_keyed_calls(calls, engine, broke["agent_id"], expect_paid=False)


def test_fastmcp_client(stack):
    base, env, engine = stack
    tools, calls = asyncio.run(fastmcp_session(base, None, "192.0.2.3"))
    assert tools == list(FREE_TOOLS)
    assert not calls["pulse"].is_error and not calls["free"].is_error
    payer, broke = premium_agent(base, env), broke_premium_agent(base, env)
    tools, calls = asyncio.run(fastmcp_session(base, payer["key"], "192.0.2.3"))
    assert len(tools) == 73
    check_keyed_calls(calls, engine, payer["agent_id"], expect_paid=True)
    _, calls = asyncio.run(fastmcp_session(base, broke["key"], "192.0.2.3"))
    check_keyed_calls(calls, engine, broke["agent_id"], expect_paid=False)


def test_manifest_health_and_card_over_gunicorn(stack):
    base, _, _ = stack
    manifest = httpx.get(f"{base}/mcp").json()
    assert (manifest["name"], manifest["version"], manifest["protocolVersion"]) == ("marketintel", "1.0.0",
                                                                                  "2025-03-26")
    assert manifest["tools_total"] == 75 and len(manifest["tools"]) == 4 and manifest["your_tier"] == "free"
    for path in ("/mcp/health", "/health/mcp"):
        health = httpx.get(f"{base}{path}")
        assert health.status_code == 200 and health.json()["status"] == "up", health.text
    card = httpx.get(f"{base}/.well-known/mcp.json").json()
    assert card["transport"]["endpoint"] == "/mcp" and card["tools"]["total"] == 75
