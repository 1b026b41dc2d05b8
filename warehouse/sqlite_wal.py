"""Switching a SQLite file to WAL, shared by the ledger engine and the dev Lightning node."""
from __future__ import annotations

import sqlite3
import time


def enable_wal(target, timeout_s: float) -> None:
    """`PRAGMA journal_mode = WAL` on a connection or cursor. WAL lets readers and one writer work at once;
    the switch needs an exclusive lock and SQLite answers "locked" at once instead of waiting the busy
    timeout, so retry while another process holds it."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            target.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
