"""`marketintel set-tier`: an operator's tier change, in SQL and out of the key directory at once."""
from __future__ import annotations

import pytest
import redis

from marketintel.cli import main
from warehouse import keys
from warehouse.ledger import Agents, make_engine
from warehouse.ledger.agents import hash_key
from warehouse.ledger.db import migrate


@pytest.fixture
def ledger_and_redis(settings):
    migrate(settings.sqlalchemy_url)
    return Agents(make_engine(settings.sqlalchemy_url)), redis.Redis.from_url(settings.effective_redis_url)


def test_set_tier_writes_sql_and_drops_the_directory_entry(ledger_and_redis):
    agents, r = ledger_and_redis
    agent, key = agents.register("op")
    r.set(keys.api_key(hash_key(key)), b"an entry the API filled earlier")
    assert main(["set-tier", agent["agent_id"], "institutional", "--until", "2099-01-01T00:00:00"]) == 0
    now = agents.by_key(key)
    assert now["tier"] == "institutional" and now["tier_expires_at"].year == 2099
    assert r.get(keys.api_key(hash_key(key))) is None  # the next request reads SQL


def test_set_tier_names_an_unknown_agent(ledger_and_redis):
    assert main(["set-tier", "agt_nobody", "premium"]) == 1
