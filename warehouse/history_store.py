"""Module history: every non-ticker module's answer as of the start of each market day (`warehouse/time_travel.py`),
one Dagster partition a day (assets/history.py), for back-tests (`/intelligence/{module}/history`) and for `as_of`
points served without computing.

Its own DuckDB file beside the warehouse, not a table in it: a day's payloads are about 0.8 MB of JSON, 20 years
of them several GB, which the analyst copy of the warehouse (rebuilt at every publish) must not carry. The history
run writes `history.duckdb` and then publishes an atomic copy, `history-analyst.duckdb`, which the API and analysts
read (a DuckDB file has one writer, and any other process holding it blocks that writer).

Two tables: `module_history`, the whole payload per module and day (zlib-compressed JSON: DuckDB stores long
strings nearly raw, and these compress fourfold), or why the module had no answer that day; and
`module_figures`, each scalar figure of `data` as a row (module, day, field, number or text), which DuckDB's
columnar compression keeps small and analysts query directly."""
from __future__ import annotations

import os
import threading
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

import duckdb
import orjson
import polars as pl

from intel.fields import published
from warehouse.duckdb_store import _Arrow, _naive_utc, connect_writer, copy_atomically

SCHEMA = """
create table if not exists module_history (
    module varchar not null,
    as_of date not null,  -- the answer at 00:00 UTC of this day, as `as_of=<day>` gives it
    data_source varchar not null,
    computed_at timestamp not null,  -- market-clock time of the run that wrote it (reruns replace)
    data_as_of date,  -- the payload's latest input observation (null when there is no answer)
    payload blob,  -- zlib of the payload's JSON; null when the module had no answer that day
    reason varchar  -- why there was no answer (its inputs' history begins later); null with a payload
);
create table if not exists module_figures (
    module varchar not null,
    as_of date not null,
    data_source varchar not null,
    field varchar not null,  -- a path of the field dictionary (intel/fields/<module>.json), or `signals`
    number double,  -- numbers and booleans (1/0)
    text varchar  -- strings and dates; `signals` holds the signals' JSON
);
"""
FIGURE_SCHEMA = {"module": pl.Utf8, "as_of": pl.Date, "field": pl.Utf8, "number": pl.Float64, "text": pl.Utf8}
ROW_SCHEMA = {"module": pl.Utf8, "as_of": pl.Date, "data_as_of": pl.Date, "payload": pl.Binary, "reason": pl.Utf8}
SIGNALS = "signals"


def figures_of(payload: dict) -> dict[str, float | str | None]:
    """The payload's scalar figures by field path (lists left out: their items are not one figure a day), and its
    signals as JSON under `signals`."""
    out: dict[str, float | str | None] = {}
    for path, values in published(payload.get("data") or {}).items():
        if "[]" in path or len(values) != 1 or isinstance(values[0], (dict, list, tuple)):
            continue
        out[path] = values[0]
    out[SIGNALS] = orjson.dumps(payload.get("signals") or []).decode()
    return out


def rows_of(day: date, answers: dict[str, dict | str]) -> tuple[list[tuple], list[tuple]]:
    """A day's answers (module -> payload, or the reason there is none) as `module_history` and `module_figures`
    rows (ROW_SCHEMA and FIGURE_SCHEMA order)."""
    history, figures = [], []
    for name, answer in answers.items():
        if isinstance(answer, str):
            history.append((name, day, None, None, answer))
            continue
        data_as_of = answer.get("data_as_of")
        history.append((name, day, date.fromisoformat(data_as_of) if data_as_of else None,
                        zlib.compress(orjson.dumps(answer, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS),
                                      6), None))
        for field, value in figures_of(answer).items():
            number = float(value) if isinstance(value, (int, float)) and not isinstance(value, str) else None
            figures.append((name, day, field, number, value if isinstance(value, str) else None))
    return history, figures


class HistoryStore:
    """The writer of `history.duckdb` (the history asset's run holds it); use as a context manager."""

    def __init__(self, path: Path, lock_timeout_s: float = 60.0):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.con = connect_writer(self.path, lock_timeout_s)
        self.con.execute(SCHEMA)

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.con.close()

    def replace_days(self, data_source: str, computed_at: datetime, days: Sequence[date],
                     history: list[tuple], figures: list[tuple]) -> None:
        """Replace everything stored for `days` of `data_source` with these rows, in one transaction (a rerun of a
        partition, or a backfill over materialized days, leaves no duplicate)."""
        rows = _Arrow(pl.DataFrame(history, schema=ROW_SCHEMA, orient="row"))  # noqa: F841 (scanned by name)
        cells = _Arrow(pl.DataFrame(figures, schema=FIGURE_SCHEMA, orient="row"))  # noqa: F841
        self.con.execute("begin")
        try:
            for table in ("module_history", "module_figures"):
                self.con.execute(f"delete from {table} where data_source = $d and list_contains($days, as_of)",
                                 {"d": data_source, "days": list(days)})
            self.con.execute("insert into module_history select module, as_of, $d, $c, data_as_of, payload, reason"
                             " from rows", {"d": data_source, "c": _naive_utc(computed_at)})
            self.con.execute("insert into module_figures select module, as_of, $d, field, number, text from cells",
                             {"d": data_source})
            self.con.execute("commit")
        except BaseException:
            self.con.execute("rollback")
            raise

    def publish(self, dest: Path) -> Path:
        """The atomic copy the API and analysts read."""
        self.con.execute("checkpoint")
        return copy_atomically(self.con, dest)


@dataclass(frozen=True)
class Point:
    """One stored day of a module: its figures (by field), or why it had no answer."""

    as_of: date
    data_as_of: date | None
    figures: dict[str, float | str | None] | None
    reason: str | None = None


def point_of(day: date, answer: dict | str, fields: Sequence[str] | None = None) -> Point:
    """A day's answer (a payload, or the reason there is none) as the figures a history serves (only `fields`)."""
    if isinstance(answer, str):
        return Point(day, None, None, answer)
    data_as_of = answer.get("data_as_of")
    return Point(day, date.fromisoformat(data_as_of) if data_as_of else None,
                 {k: v for k, v in figures_of(answer).items() if fields is None or k in fields})


class HistoryReader:
    """Reads the published copy, read only. One connection per process, reopened when the copy is replaced (a new
    file under the same name); each call uses its own cursor, so threads may call at once."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._held: tuple[tuple[int, int], duckdb.DuckDBPyConnection] | None = None

    def _cursor(self) -> duckdb.DuckDBPyConnection | None:
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return None
        identity = (stat.st_ino, stat.st_mtime_ns)
        with self._lock:
            if self._held is None or self._held[0] != identity:
                if self._held is not None:
                    self._held[1].close()
                self._held = (identity, duckdb.connect(str(self.path), read_only=True))
            return self._held[1].cursor()

    def payload(self, module: str, day: date, data_source: str) -> bytes | str | None:
        """The stored payload's JSON, or the reason the module had none that day (a str), or None: not stored."""
        cursor = self._cursor()
        if cursor is None:
            return None
        with cursor:
            row = cursor.execute("select payload, reason from module_history where module = $m and as_of = $a"
                                 " and data_source = $d", {"m": module, "a": day, "d": data_source}).fetchone()
        if row is None:
            return None
        return zlib.decompress(row[0]) if row[0] is not None else row[1]

    def points(self, module: str, days: Iterable[date], data_source: str,
               fields: Sequence[str] | None) -> dict[date, Point]:
        """The stored days among `days`, each with its figures (only `fields`, when given)."""
        cursor = self._cursor()
        wanted = sorted(set(days))
        if cursor is None or not wanted:
            return {}
        params = {"m": module, "d": data_source, "lo": wanted[0], "hi": wanted[-1], "days": wanted}
        with cursor:
            stored = cursor.execute(
                "select as_of, data_as_of, reason from module_history where module = $m and data_source = $d"
                " and as_of between $lo and $hi and list_contains($days, as_of)", params).fetchall()
            cells = cursor.execute(
                "select as_of, field, number, text from module_figures where module = $m and data_source = $d"
                " and as_of between $lo and $hi and list_contains($days, as_of)"
                + (" and list_contains($fields, field)" if fields is not None else ""),
                {**params, "fields": list(fields)} if fields is not None else params).fetchall()
        by_day: dict[date, dict] = {}
        for as_of, field, number, text in cells:
            by_day.setdefault(as_of, {})[field] = text if text is not None else number
        return {as_of: Point(as_of, data_as_of, None if reason is not None else by_day.get(as_of, {}), reason)
                for as_of, data_as_of, reason in stored}
