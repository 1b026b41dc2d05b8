"""What an operator changes by hand, applied where the API will see it at once."""
from __future__ import annotations

from datetime import datetime

import redis
from sqlalchemy import Engine

from warehouse import keys
from warehouse.ledger import Agents


def set_tier(engine: Engine, redis_client: redis.Redis, agent_id: str, tier: str,
             expires_at: datetime | None = None) -> None:
    """Give an agent a tier (without an end unless `expires_at`): in SQL, then out of the key directory, so the
    next request reads it from SQL (api/key_directory.py; a change made in SQL alone shows within its TTL)."""
    key_hashes = Agents(engine).set_tier(agent_id, tier, expires_at)
    if key_hashes:
        redis_client.delete(*[keys.api_key(h) for h in key_hashes])
