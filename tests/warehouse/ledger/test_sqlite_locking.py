"""SQLite specifics: writers queue on the write lock taken at BEGIN; reads go around it (WAL)."""
from __future__ import annotations

import threading
import time

from sqlalchemy import text

from warehouse.ledger import Agents, Money, make_engine, migrate


def test_writers_wait_for_the_lock_and_readers_do_not(tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    migrate(url)
    engine = make_engine(url)
    agent, key = Agents(engine).register("reader")
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1

    writer_done = threading.Event()

    def write():
        Agents(engine).register("second writer")
        writer_done.set()

    with engine.begin() as holder:  # BEGIN IMMEDIATE: this connection now holds the write lock
        holder.execute(text("UPDATE agents SET name = 'renamed' WHERE id = :id"), {"id": agent["id"]})
        thread = threading.Thread(target=write)
        thread.start()
        started = time.monotonic()
        assert Agents(engine).by_key(key)["name"] == "reader"  # sees the last committed state
        assert Money(engine).balance(agent["id"]) == 0
        assert time.monotonic() - started < 1.0
        assert not writer_done.wait(0.5)  # queued on the busy timeout, not failed
    thread.join(timeout=10)
    assert writer_done.is_set()
    assert Agents(engine).get(agent["id"])["name"] == "renamed"
    engine.dispose()
