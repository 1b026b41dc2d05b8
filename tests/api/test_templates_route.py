"""GET /api/v1/templates: no credential; each template's modules exist, its code compiles, and its usage is the
price list's arithmetic over its schedule."""
from __future__ import annotations

from intel.registry import modules


def test_templates_without_a_credential(unpublished_client, services):
    resp = unpublished_client.simulate_get("/api/v1/templates", headers={"X-API-Key": "mi_not_a_key"})
    assert resp.status_code == 200, resp.text
    assert resp.headers.get("X-Credentials-Ignored") == "invalid_api_key"  # a public route ignores a bad key
    body, registry = resp.json, modules()
    assert body["count"] == len(body["templates"]) == 5
    free = services.settings.free_queries_per_module_per_day
    for template in body["templates"]:
        assert template["modules"] and set(template["modules"]) <= set(registry)
        compile(template["code"]["python"], template["id"], "exec")
        usage = template["estimated_usage"]
        price = {m: services.prices.module(m).price_sats for m in usage["by_module"]}
        assert usage["prices_sats"] == price
        assert usage["module_queries_per_day"] == sum(usage["by_module"].values())
        assert usage["sats_per_day_list_price"] == sum(n * price[m] for m, n in usage["by_module"].items())
        assert usage["sats_per_day"] == sum(max(0, n - free) * price[m] for m, n in usage["by_module"].items())
        assert usage["sats_per_30_days"] == 30 * usage["sats_per_day"]
    briefing = next(t for t in body["templates"] if t["id"] == "daily_briefing_bot")
    assert briefing["estimated_usage"]["sats_per_day"] == 0  # one query of each module a day: all free
