"""The record chains on both backends: appends link and verify, repeat appends are no-ops, nothing replaces or
back-dates a record, and concurrent writers never fork a chain."""
from __future__ import annotations

import multiprocessing
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta

import pytest
from sqlalchemy import text

from intel.hash_chain import GENESIS
from marketintel.signing import load_or_create
from tests.chain_records import QUESTIONS, days, fill, prediction, resolution
from warehouse.ledger import make_engine, migrate
from warehouse.ledger.records import (
    DayClosed,
    RecordConflict,
    Records,
    UnknownReference,
    prediction_chain,
    verify,
)

LIVE, BACKTEST = prediction_chain("live"), prediction_chain("backtest")
START = date(2024, 3, 1)


@pytest.fixture
def key(tmp_path):
    return load_or_create(tmp_path / "home")


@pytest.fixture
def records(engine):
    return Records(engine)


def verified(records: Records, chain: str, key):
    return verify(chain, records.listing(chain, 0, 10**6), records.heads(chain), key.public_bytes)


def test_appended_records_link_into_one_chain_that_verifies(records, key):
    appended = fill(records, key)
    listed = records.listing(LIVE)
    assert [r["seq"] for r in listed] == list(range(1, 19)) and listed[0]["prev_hash"] == GENESIS
    assert all(b["prev_hash"] == a["hash"] for a, b in zip(listed, listed[1:]))
    assert [a.hash for a in appended] == [r["hash"] for r in listed[:15]]
    result = verified(records, LIVE, key)
    assert result.ok and (result.records, result.heads, result.unsigned) == (18, 5, 0), str(result)
    assert str(result) == f"verified 18 records, 5 signed heads, chain {LIVE} head {listed[-1]['hash']}"
    assert records.listing(LIVE, after_seq=16) == listed[16:] and records.listing(LIVE, 3, limit=2) == listed[3:5]
    assert [h["seq"] for h in records.heads(LIVE, after_seq=3, through_seq=9)] == [6, 9]
    assert records.listing(BACKTEST) == [] and records.head(BACKTEST) is None  # the chains never mix
    pred, res = records.prediction_with_resolution(LIVE, f"live:{START}:spx_up_21d")
    assert res is not None and f'"prediction_hash":"{pred["hash"]}"' in res["body"]
    assert records.prediction_with_resolution(LIVE, f"live:{START + timedelta(days=1)}:spx_up_21d")[1] is None


def test_a_repeated_append_returns_the_stored_hash_and_a_changed_one_is_refused(records):
    body = prediction("live", START, "spx_up_21d")
    first = records.append(LIVE, "prediction", [body], START)[0]
    again = records.append(LIVE, "prediction", [dict(reversed(list(body.items())))], START)[0]  # key order is moot
    assert first.new and not again.new and (again.seq, again.hash) == (first.seq, first.hash)
    with pytest.raises(RecordConflict):
        records.append(LIVE, "prediction", [{**body, "probability": 0.6}], START)
    assert records.count(LIVE) == 1


def test_records_are_appended_in_date_order_and_a_signed_day_is_closed(records, key):
    records.append(LIVE, "prediction", [prediction("live", START, "spx_up_21d")], START)
    with pytest.raises(DayClosed):
        records.append(LIVE, "prediction", [prediction("live", START, "vix_above_30_21d")], START - timedelta(1))
    assert records.sign_heads(LIVE, START, key) == records.sign_heads(LIVE, START, key)  # signed once
    with pytest.raises(DayClosed):
        records.append(LIVE, "prediction", [prediction("live", START, "vix_above_30_21d")], START)
    assert records.sign_heads(BACKTEST, START, key) is None  # nothing to sign yet
    assert records.count(LIVE) == 1


def test_a_resolution_must_name_its_prediction_by_its_hash(records):
    pred = prediction("live", START, "spx_up_21d")
    stored = records.append(LIVE, "prediction", [pred], START)[0]
    with pytest.raises(UnknownReference):
        records.append(LIVE, "resolution", [resolution(pred, "ab" * 32, START + timedelta(1))], START + timedelta(1))
    with pytest.raises(UnknownReference):  # a back-test resolution cannot point into the live chain
        records.append(BACKTEST, "resolution", [resolution(pred, stored.hash, START)], START)
    assert records.append(LIVE, "resolution", [resolution(pred, stored.hash, START)], START)[0].new


def test_concurrent_writers_never_fork_a_chain(records, key):
    writers, each = 8, 20
    start = threading.Barrier(writers)

    def write(worker: int) -> int:
        start.wait()
        for i in range(each):
            records.append(LIVE, "prediction", [prediction("live", START, f"q{worker}_{i}")], START)
            # every writer also repeats one record the others write: stored once
            records.append(LIVE, "prediction", [prediction("live", START, "shared")], START)
        return worker

    with ThreadPoolExecutor(writers) as pool:
        list(pool.map(write, range(writers)))
    records.sign_heads(LIVE, START, key)
    assert records.count(LIVE) == writers * each + 1
    assert verified(records, LIVE, key).ok


def _append_in_another_process(url: str, tag: str, n: int, start, out) -> None:
    engine = make_engine(url)
    records = Records(engine)
    start.wait()
    for i in range(n):
        records.append(LIVE, "prediction", [prediction("live", START, f"{tag}_{i}")], START)
    out.put(n)
    engine.dispose()


def test_two_processes_appending_to_one_sqlite_file_never_fork_the_chain(tmp_path, key):
    url = f"sqlite:///{tmp_path / 'records.sqlite'}"
    migrate(url)
    context = multiprocessing.get_context("spawn")
    start, out = context.Barrier(2), context.Queue()
    processes = [context.Process(target=_append_in_another_process, args=(url, tag, 60, start, out))
                 for tag in ("p1", "p2")]
    for process in processes:
        process.start()
    assert sorted(out.get(timeout=120) for _ in processes) == [60, 60]
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    engine = make_engine(url)
    records = Records(engine)
    records.sign_heads(LIVE, START, key)
    assert records.count(LIVE) == 120 and verified(records, LIVE, key).ok
    engine.dispose()


def test_a_back_test_of_tens_of_thousands_of_records_appends_in_seconds(records, key):
    entries = [("prediction", prediction("backtest", day, q), day)
               for day in days(date(2000, 1, 3), 7000) for q in QUESTIONS]
    started = time.perf_counter()
    appended = records.append_entries(BACKTEST, entries)
    took = time.perf_counter() - started
    assert len(appended) == 21_000 and all(a.new for a in appended)
    assert took < 15, f"{took:.1f} s for 21000 records"
    assert not any(a.new for a in records.append_entries(BACKTEST, entries[:1000]))  # the repeat is a no-op
    records.sign_heads(BACKTEST, entries[-1][2], key)
    assert verified(records, BACKTEST, key).ok and records.listing(LIVE) == []
    print(f"appended 21000 back-test records in {took:.2f} s")


def test_an_edited_row_is_named_by_verification(records, key, engine):
    fill(records, key)
    victim = records.listing(LIVE)[6]
    with engine.begin() as conn:
        conn.execute(text("UPDATE chain_records SET body = replace(body, '0.5813', '0.7813') "
                          "WHERE chain = :c AND seq = 7"), {"c": LIVE})
    result = verified(records, LIVE, key)
    assert not result.ok and result.failure.seq == 7 and result.failure.what == victim["record_id"]
    assert str(result.failure).startswith(f"record 7 ({victim['record_id']}) hash mismatch")
