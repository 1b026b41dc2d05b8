"""The day-trade paper journal in SQL: its events are the records of one append-only hash chain (chain_records,
`DAYTRADE_CHAIN`, the same store, rules and signed daily heads as the prediction record: warehouse/ledger/records.py,
intel/hash_chain.py), and the terms each agent accepted (daytrade_terms_acceptances)."""
from __future__ import annotations

from datetime import date, datetime

import orjson
from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from .db import reading
from .records import Appended, Records
from .tables import daytrade_terms_acceptances

DAYTRADE_CHAIN = "daytrade:journal"
KINDS = {"ENTERED": "entered", "EXITED": "exited"}  # the chain record's `kind` of each event
_PAGE = 5000


class Journal:
    def __init__(self, engine: Engine):
        self.records = Records(engine)

    def append(self, events: list[dict], recorded_on: date) -> list[Appended]:
        """Append events (bodies with `id` and `event`) in order, in one transaction."""
        return self.records.append_entries(DAYTRADE_CHAIN, [(KINDS[e["event"]], e, recorded_on) for e in events])

    def sign_head(self, day: date, key) -> dict | None:
        return self.records.sign_heads(DAYTRADE_CHAIN, day, key)

    def all_records(self) -> list[dict]:
        """Every record (seq order) with its chain fields, and `event`: the parsed body."""
        out, after = [], 0
        while page := self.records.listing(DAYTRADE_CHAIN, after, _PAGE):
            out += [{**r, "event": orjson.loads(r["body"])} for r in page]
            after = page[-1]["seq"]
        return out

    def bodies(self) -> list[dict]:
        return [r["event"] for r in self.all_records()]

    def head(self) -> dict | None:
        return self.records.head(DAYTRADE_CHAIN)

    def heads(self) -> list[dict]:
        return self.records.heads(DAYTRADE_CHAIN)


class TermsAcceptances:
    def __init__(self, engine: Engine):
        self.engine = engine

    def accept(self, agent_pk: int, version: str, at: datetime) -> datetime:
        """Record the agent's acceptance of `version` at `at`; accepting again keeps the first time (returned)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(daytrade_terms_acceptances),
                             {"agent_id": agent_pk, "terms_version": version, "accepted_at": at})
            return at
        except IntegrityError:  # accepted before (or at the same moment elsewhere): the first acceptance stands
            accepted = self.accepted_at(agent_pk, version)
            if accepted is None:
                raise
            return accepted

    def accepted_at(self, agent_pk: int, version: str) -> datetime | None:
        t = daytrade_terms_acceptances.c
        with reading(self.engine) as conn:
            return conn.scalar(select(t.accepted_at).where(t.agent_id == agent_pk, t.terms_version == version))
