"""Keys resolved from the Redis directory: a rotation on one API instance is refused by another on its very next
request, a lookup racing a rotation cannot bring the old key back, and the SQL record answers when Redis lost
the entries."""
from __future__ import annotations

import falcon.testing
import pytest
import redis

from api.app import create_app
from api.key_directory import LIVE_TTL_S, REFRESH_SCRIPT, TOMBSTONE, entry_of
from api.services import Services
from warehouse import keys
from warehouse.ledger.agents import hash_key

pytestmark = pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)


def auth(key: str) -> dict:
    return {"X-API-Key": key}


@pytest.fixture
def second(settings, client):
    """A second API instance: its own services (Redis pool, SQL engine), the same Redis and ledger."""
    return falcon.testing.TestClient(create_app(settings, Services.build(settings)))


def test_a_key_rotated_on_one_instance_is_refused_by_another_on_its_next_request(client, second):
    old = client.simulate_post("/api/v1/agents/register", json={"name": "a"}).json["api_key"]
    assert second.simulate_get("/api/v1/agents/me", headers=auth(old)).status_code == 200
    new = client.simulate_post("/api/v1/agents/rotate-key", headers=auth(old)).json["api_key"]
    refused = second.simulate_get("/api/v1/agents/me", headers=auth(old))
    assert refused.status_code == 401 and refused.json["error"]["code"] == "invalid_api_key"
    # on a module query too, before anything is counted or charged
    query = second.simulate_get("/api/v1/intelligence/vix", headers=auth(old))
    assert query.status_code == 401
    assert second.simulate_get("/api/v1/agents/me", headers=auth(new)).status_code == 200
    # a public route ignores the rotated key, and says so
    pulse = second.simulate_get("/api/v1/pulse", headers=auth(old))
    assert pulse.status_code == 200 and pulse.headers["X-Credentials-Ignored"] == "invalid_api_key"


def test_a_lookup_that_read_sql_before_a_rotation_cannot_revive_the_old_key(client, services, settings):
    old = client.simulate_post("/api/v1/agents/register", json={"name": "a"}).json["api_key"]
    r = redis.Redis.from_url(settings.effective_redis_url)
    r.delete(keys.api_key(hash_key(old)))  # as after a Redis restart: the next lookup goes to SQL
    stale_row = services.agents.raw_by_key(old)  # that lookup reads SQL here ...
    new = client.simulate_post("/api/v1/agents/rotate-key", headers=auth(old)).json["api_key"]
    # ... and fills the directory only now, NX
    assert r.set(keys.api_key(hash_key(old)), entry_of(stale_row), nx=True, ex=LIVE_TTL_S) is None
    assert r.get(keys.api_key(hash_key(old))) == TOMBSTONE
    assert client.simulate_get("/api/v1/agents/me", headers=auth(old)).status_code == 401
    assert client.simulate_get("/api/v1/agents/me", headers=auth(new)).status_code == 200


def test_sql_answers_when_redis_lost_the_directory(client, settings):
    old = client.simulate_post("/api/v1/agents/register", json={"name": "a"}).json["api_key"]
    new = client.simulate_post("/api/v1/agents/rotate-key", headers=auth(old)).json["api_key"]
    r = redis.Redis.from_url(settings.effective_redis_url)
    r.delete(keys.api_key(hash_key(old)), keys.api_key(hash_key(new)))  # tombstone and entry gone
    assert client.simulate_get("/api/v1/agents/me", headers=auth(old)).status_code == 401
    assert r.get(keys.api_key(hash_key(old))) is None  # a key SQL refuses is not added
    me = client.simulate_get("/api/v1/agents/me", headers=auth(new))
    assert me.status_code == 200 and r.get(keys.api_key(hash_key(new))) is not None  # filled again


def test_an_upgrade_racing_a_rotation_does_not_revive_the_old_key(client, services, settings):
    old = client.simulate_post("/api/v1/agents/register", json={"name": "a"}).json["api_key"]
    stale_row = services.agents.raw_by_key(old)  # `changed` read SQL before the rotation committed ...
    client.simulate_post("/api/v1/agents/rotate-key", headers=auth(old))
    r = redis.Redis.from_url(settings.effective_redis_url)
    refresh = r.register_script(REFRESH_SCRIPT)  # ... and rewrites the entry only now
    assert refresh(keys=[keys.api_key(hash_key(old))], args=[entry_of(stale_row), TOMBSTONE, LIVE_TTL_S]) == 0
    assert client.simulate_get("/api/v1/agents/me", headers=auth(old)).status_code == 401


def test_a_module_query_counts_nothing_for_a_key_rotated_elsewhere(client, second, settings):
    old = client.simulate_post("/api/v1/agents/register", json={"name": "a"}).json["api_key"]
    agent_id = second.simulate_get("/api/v1/agents/me", headers=auth(old)).json["agent_id"]
    assert second.simulate_get("/api/v1/intelligence/vix", headers=auth(old)).status_code == 200  # key remembered
    client.simulate_post("/api/v1/agents/rotate-key", headers=auth(old))
    assert second.simulate_get("/api/v1/intelligence/vix", headers=auth(old)).status_code == 401
    r = redis.Redis.from_url(settings.effective_redis_url)
    counts = [int(r.get(k)) for k in r.scan_iter(f"{keys.PREFIX}:free:*:a:{agent_id}:*")]
    assert counts == [1]  # the refused query took back nothing because it counted nothing


def test_a_tier_set_by_an_operator_holds_from_the_next_module_query(client, services):
    from tests.api.agent_helpers import set_tier

    key = client.simulate_post("/api/v1/agents/register", json={"name": "a"}).json["api_key"]
    agent_id = client.simulate_get("/api/v1/agents/me", headers=auth(key)).json["agent_id"]
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 200  # key remembered
    set_tier(services, agent_id, "premium")
    assert client.simulate_get("/api/v1/intelligence/yield_curve", headers=auth(key)).status_code == 200
    assert services.directory.remembered(key).agent["tier"] == "premium"
