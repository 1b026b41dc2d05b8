"""One row per served module query, free or paid: the basis of usage statistics and agent consensus."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.dialects import postgresql, sqlite

from .tables import usage_events, utcnow

_INSERTS = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}


class Usage:
    def __init__(self, engine: Engine):
        self.engine = engine

    def record(self, request_id: str, module: str, charged_sats: int, free: bool,
               agent_pk: int | None = None, client: str | None = None, created_at: datetime | None = None) -> None:
        """Record a served query; a repeated request_id is ignored (a retry must not count twice)."""
        self.record_many([dict(request_id=request_id, module=module, charged_sats=charged_sats, free=free,
                               agent_id=agent_pk, client=client, created_at=created_at or utcnow())])

    def record_many(self, events: list[dict]) -> int:
        """Insert many events (usage_events columns) in one transaction; repeated request_ids are ignored."""
        if not events:
            return 0
        insert = _INSERTS[self.engine.dialect.name](usage_events).on_conflict_do_nothing(index_elements=["request_id"])
        with self.engine.begin() as conn:
            conn.execute(insert, events)
        return len(events)
