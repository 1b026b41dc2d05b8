"""MCP tool calls when Redis freezes: the result names the part that is down (as REST's 503 does), fast, nothing is
charged, the MCP health says down within its bound, and calls are served again once it resumes, with no restart."""
from __future__ import annotations

import signal
import time

import pytest

from tests.api.conftest import app, computed_payloads, publish, services  # noqa: F401 (fixtures)
from tests.api.test_mcp_endpoint import call, run
from tests.parallel import ALONE

pytestmark = pytest.mark.xdist_group(ALONE)

BOUND_S = 2.0


def test_a_frozen_redis_is_a_fast_tool_error_naming_it_and_calls_recover(app, settings, private_redis,  # noqa: F811
                                                                         computed_payloads):  # noqa: F811
    publish(settings.effective_redis_url, computed_payloads)

    async def scenario(conductor):
        served = await call(conductor, "market_intelligence")
        private_redis.process.send_signal(signal.SIGSTOP)
        try:
            began = time.monotonic()
            frozen = await call(conductor, "market_intelligence")
            waited = time.monotonic() - began
            began = time.monotonic()
            health = await conductor.simulate_get("/mcp/health")
            health_waited = time.monotonic() - began
        finally:
            private_redis.process.send_signal(signal.SIGCONT)
        return served, frozen, waited, health, health_waited, await call(conductor, "get_pulse")  # (free query spent)

    served, frozen, waited, health, health_waited, again = run(app, scenario)
    assert not served.json["result"]["isError"]
    result = frozen.json["result"]
    assert result["isError"] and waited < BOUND_S, (result, waited)
    body = result["structuredContent"]
    assert body["status"] == 503 and body["error"]["code"] == "dependency_unavailable"
    assert body["error"]["dependency"] == "redis" and body["error"]["retry_after_seconds"] > 0
    # the MCP health answers within its bound too: its transport lists tools, Redis is down
    assert health.status_code == 200 and health.json["status"] == "down" and health_waited < BOUND_S, health.json
    assert health.json["checks"]["mcp"].startswith("ok") and health.json["checks"]["redis"].startswith("down")
    assert not again.json["result"]["isError"], again.json  # the same process serves again once Redis answers
