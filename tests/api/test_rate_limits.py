"""Per-key moving-window limits by tier on module queries and the batch, in the real Redis: 429 with
Retry-After in the standard error shape, per agent (a rotated key keeps the window), the batch counting
each module, and callers without a key limited per address."""
from __future__ import annotations

import pytest

from tests.api.account_helpers import upgrade
from tests.api.agent_helpers import auth, register

pytestmark = pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def settings(settings):
    return settings.model_copy(update={"rate_limit_free": "3/minute", "rate_limit_premium": "5/minute",
                                       "rate_limit_institutional": "50/minute"})


def query(client, key: str | None, module: str = "vix", **kwargs):
    return client.simulate_get(f"/api/v1/intelligence/{module}", headers=auth(key) if key else {}, **kwargs)


def assert_limited(resp) -> None:
    assert resp.status_code == 429
    retry_after = int(resp.headers["Retry-After"])
    assert 1 <= retry_after <= 60
    error = resp.json["error"]
    assert error["code"] == "rate_limited" and error["retry_after_seconds"] == retry_after and error["message"]


def test_a_key_over_its_budget_gets_429_with_retry_after(client):
    key, _ = register(client, "busy")
    other, _ = register(client, "calm")
    assert [query(client, key, m).status_code for m in ("vix", "bitcoin", "vix")] == [200, 200, 402]
    assert_limited(query(client, key, "yield_curve"))  # the budget is per key, across modules
    assert query(client, other).status_code == 200  # another key has its own


def test_rotating_the_key_does_not_reset_the_window(client):
    key, _ = register(client)
    for _ in range(3):
        query(client, key)
    new = client.simulate_post("/api/v1/agents/rotate-key", headers=auth(key)).json["api_key"]
    assert_limited(query(client, new))


def test_a_paid_tier_has_its_own_budget(client):
    key, _ = register(client)
    upgrade(client, key, "premium")
    statuses = [query(client, key, m).status_code
                for m in ("vix", "bitcoin", "yield_curve", "inflation", "dollar_strength")]
    assert statuses == [200] * 5
    assert_limited(query(client, key, "copper_gold_ratio"))


def test_the_batch_counts_each_module(client):
    key, _ = register(client)
    upgrade(client, key, "premium")
    batch = {"modules": ["vix", "bitcoin", "yield_curve"]}
    assert client.simulate_post("/api/v1/intelligence/batch", headers=auth(key), json=batch).status_code == 200
    assert_limited(client.simulate_post("/api/v1/intelligence/batch", headers=auth(key), json=batch))  # 3 + 3 > 5
    pair = {"modules": ["inflation", "dollar_strength"]}
    assert client.simulate_post("/api/v1/intelligence/batch", headers=auth(key), json=pair).status_code == 200
    assert_limited(query(client, key))


def test_callers_without_a_key_are_limited_per_address(client):
    statuses = [query(client, None, m, remote_addr="10.9.0.1").status_code
                for m in ("vix", "bitcoin", "dollar_strength")]
    assert statuses == [200, 200, 200]
    assert_limited(query(client, None, "inflation", remote_addr="10.9.0.1"))
    assert query(client, None, "inflation", remote_addr="10.9.0.2").status_code == 200
