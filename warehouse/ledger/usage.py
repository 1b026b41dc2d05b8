"""One row per served query, free or paid: the basis of usage statistics and agent consensus."""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import Engine, Integer, case, cast, distinct, extract, func, literal, select
from sqlalchemy.dialects import postgresql, sqlite

from intel.consensus import Attention, Tally

from .db import reading
from .tables import usage_events, utcnow

_INSERTS = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}
NO_FORMAT = "none"  # the format of a query that had no choice of one (an ask, a product, the catalog)


class Usage:
    def __init__(self, engine: Engine):
        self.engine = engine

    def record(self, request_id: str, module: str, charged_sats: int, free: bool, agent_pk: int | None = None,
               client: str | None = None, created_at: datetime | None = None, fmt: str | None = None) -> None:
        """Record a served query; a repeated request_id is ignored (a retry must not count twice)."""
        self.record_many([dict(request_id=request_id, module=module, charged_sats=charged_sats, free=free,
                               agent_id=agent_pk, client=client, created_at=created_at or utcnow(), format=fmt)])

    def record_many(self, events: list[dict]) -> int:
        """Insert many events (usage_events columns) in one transaction; repeated request_ids are ignored."""
        if not events:
            return 0
        insert = _INSERTS[self.engine.dialect.name](usage_events).on_conflict_do_nothing(index_elements=["request_id"])
        with self.engine.begin() as conn:
            conn.execute(insert, events)
        return len(events)

    def attention(self, split: datetime, end: datetime, categories: Mapping[str, str],
                  other_category: str = "other") -> Attention:
        """Counts of the window [split, end] and of the one of equal length before it, by topic, by category
        (`categories` maps a topic to its category; any other topic is `other_category`), and the current
        window's by UTC hour of day and by format. Aggregated in SQL: callers are counted, never returned."""
        start = split - (end - split)
        c = usage_events.c
        window = case((c.created_at >= split, "current"), else_="previous")
        category = (case(dict(categories), value=c.module, else_=other_category) if categories
                    else literal(other_category))
        both = (c.created_at >= start, c.created_at <= end)
        current = (c.created_at >= split, c.created_at <= end)
        with reading(self.engine) as conn:
            return Attention(
                start, split, end,
                totals={k[0]: t for k, t in _tallies(conn, both, window).items()},
                topics=_tallies(conn, both, window, c.module),
                categories=_tallies(conn, both, window, category),
                hours={k[0]: t for k, t in _tallies(conn, current, _utc_hour(conn.dialect.name)).items()},
                formats={k[0]: t for k, t in _tallies(conn, current, func.coalesce(c.format, NO_FORMAT)).items()})


def _tallies(conn, where, *keys) -> dict[tuple, Tally]:
    # grouped over a subquery's columns: PostgreSQL would not match a CASE with bound values in SELECT to the
    # same CASE in GROUP BY (each copy gets its own parameters)
    keyed = select(*[key.label(f"k{i}") for i, key in enumerate(keys)], usage_events.c.client).where(*where).subquery()
    columns = [keyed.c[f"k{i}"] for i in range(len(keys))]
    rows = conn.execute(select(*columns, func.count(), func.count(distinct(keyed.c.client))).group_by(*columns)).all()
    return {tuple(row[:-2]): Tally(int(row[-2]), int(row[-1])) for row in rows}


def _utc_hour(dialect: str):
    created = usage_events.c.created_at
    if dialect == "postgresql":  # timestamptz: EXTRACT reads the session's time zone unless told UTC
        return cast(extract("hour", func.timezone("UTC", created)), Integer)
    return extract("hour", created)  # SQLite stores naive UTC (tables.UTCDateTime)
