"""The day-trade journal in SQL: events appended from the sim provider's bars by the asset's own function, the chain
and its signed head verify, a rewritten row is found by the verification, and terms acceptances are per version."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
import pytest
from sqlalchemy import update

from assets.daytrade import journal_events
from intel.hash_chain import verify
from intel.providers.sim import SimProvider
from marketintel.signing import load_or_create
from warehouse.ledger import Agents
from warehouse.ledger.daytrade import DAYTRADE_CHAIN, Journal, TermsAcceptances
from warehouse.ledger.records import RecordConflict
from warehouse.ledger.tables import chain_records

START = datetime(2026, 9, 1, 22, tzinfo=UTC)  # after the US close: that day's bars have closed


def run_days(journal: Journal, days: int, key=None) -> None:
    provider = SimProvider(seed=7)
    for n in range(days):
        now = START + timedelta(days=n)
        head = journal.head()
        if key is not None and head is not None and head["recorded_on"] < now.date().isoformat():
            journal.sign_head(datetime.fromisoformat(head["recorded_on"]).date(), key)
        events, _ = journal_events(provider, journal.bodies(), now)
        if events:
            journal.append(events, now.date())


@pytest.mark.parametrize("ledger_url", ["sqlite"], indirect=True)
def test_the_journal_chain_verifies_and_shows_a_rewritten_row(engine, tmp_path):
    journal, key = Journal(engine), load_or_create(tmp_path)
    run_days(journal, 12, key)
    records, heads = journal.all_records(), journal.heads()
    assert len(records) > 5 and heads, "the sim bars open and close ideas over 12 days"
    assert verify(DAYTRADE_CHAIN, records, heads, key.public_bytes).ok
    assert {r["kind"] for r in records} == {"entered", "exited"}

    # somebody turns a losing exit into a win, straight in SQL, and re-hashes nothing
    target = next(r for r in records if r["kind"] == "exited")
    body = orjson.loads(target["body"])
    body["paper_pnl_pct"] = abs(body["paper_pnl_pct"]) + 5.0
    with engine.begin() as conn:
        conn.execute(update(chain_records).where(chain_records.c.chain == DAYTRADE_CHAIN,
                                                 chain_records.c.seq == target["seq"])
                     .values(body=orjson.dumps(body, option=orjson.OPT_SORT_KEYS).decode()))
    result = verify(DAYTRADE_CHAIN, journal.all_records(), journal.heads(), key.public_bytes)
    assert not result.ok and result.failure.seq == target["seq"] and "hash mismatch" in result.failure.reason


@pytest.mark.parametrize("ledger_url", ["sqlite"], indirect=True)
def test_an_event_cannot_be_replaced_and_a_rerun_adds_nothing(engine):
    journal = Journal(engine)
    run_days(journal, 6)
    count = len(journal.all_records())
    events, _ = journal_events(SimProvider(seed=7), journal.bodies(), START + timedelta(days=5))
    assert events == []  # the same run again: every event is already there
    first, later = journal.bodies()[0], (START + timedelta(days=6)).date()
    with pytest.raises(RecordConflict):
        journal.append([{**first, "reference_price": first["reference_price"] * 1.1}], later)
    assert len(journal.all_records()) == count


@pytest.mark.parametrize("ledger_url", ["sqlite"], indirect=True)
def test_terms_acceptances_are_per_version_and_keep_the_first_time(engine):
    agent = Agents(engine).register("trader")[0]
    acceptances, at = TermsAcceptances(engine), datetime(2026, 11, 28, 15, tzinfo=UTC)
    assert acceptances.accepted_at(agent["id"], "v1") is None
    assert acceptances.accept(agent["id"], "v1", at) == at
    assert acceptances.accept(agent["id"], "v1", at + timedelta(hours=1)) == at
    assert acceptances.accepted_at(agent["id"], "v1") == at and acceptances.accepted_at(agent["id"], "v2") is None
