"""SQLite specifics: writers queue on the write lock taken at BEGIN; reads go around it (WAL)."""
from __future__ import annotations

import threading

from sqlalchemy import event, text

from warehouse.ledger import Agents, Money, make_engine, migrate


def test_writers_wait_for_the_lock_and_readers_do_not(tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    migrate(url)
    engine = make_engine(url)
    writer_at_lock, released = threading.Event(), threading.Event()
    writer_begins: list[bool] = []  # for each BEGIN of the writer thread: had the holder let go when it returned?
    writer_errors: list[Exception] = []

    def in_writer() -> bool:
        return threading.current_thread().name == "writer"

    @event.listens_for(engine, "connect")
    def _trace(dbapi_connection, _record):
        # sqlite calls the trace hook as a statement starts, before BEGIN IMMEDIATE waits on the busy timeout
        dbapi_connection.set_trace_callback(
            lambda sql: writer_at_lock.set() if in_writer() and sql.startswith("BEGIN IMMEDIATE") else None)

    @event.listens_for(engine, "begin")  # registered after make_engine's, so it runs once BEGIN has returned
    def _began(_connection):
        if in_writer():
            writer_begins.append(released.is_set())

    agent, key = Agents(engine).register("reader")
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1

    def write():
        try:
            Agents(engine).register("second writer")
        except Exception as exc:  # "database is locked": the writer failed instead of queueing
            writer_errors.append(exc)

    thread = threading.Thread(target=write, name="writer")
    with engine.begin() as holder:  # BEGIN IMMEDIATE: this connection now holds the write lock
        holder.execute(text("UPDATE agents SET name = 'renamed' WHERE id = :id"), {"id": agent["id"]})
        thread.start()
        assert writer_at_lock.wait(10)  # the second writer is now waiting on the lock this block holds
        # A read that needed the write lock would raise "database is locked" after the busy timeout (this
        # thread holds it until the block ends): answering with the last committed state proves it went around.
        assert Agents(engine).by_key(key)["name"] == "reader"
        assert Money(engine).balance(agent["id"]) == 0
        # a writer that fails instead of queueing fails at once: give it the time to (no speed is measured;
        # a queued writer cannot finish while this block holds the lock, however long the wait)
        thread.join(0.2)
        assert thread.is_alive() and writer_begins == [] and writer_errors == []
        released.set()  # the block's end commits and lets go of the lock
    thread.join(timeout=30)
    assert not thread.is_alive() and writer_errors == []
    assert writer_begins == [True]  # the writer got the lock only after the holder let go, and then succeeded
    with engine.connect() as conn:
        assert conn.execute(text("SELECT name FROM agents ORDER BY id")).scalars().all() == ["renamed", "second writer"]
    engine.dispose()
