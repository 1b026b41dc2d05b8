"""The DuckDB warehouse: observation history with revisions, module, pulse and product results, watermarks.

Only the Dagster process tree opens this file. DuckDB allows one writing process and any other process
holding the file (even read-only) blocks it, so the API reads Redis and analysts read a copy
(`refresh_analyst_copy`).

Polars frames go into DuckDB through the Arrow PyCapsule interface and come back through numpy, so
pyarrow is not needed.
"""
from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import orjson
import polars as pl

from intel.frames import BARS_SCHEMA, INTRADAY_SCHEMA, LONG_SCHEMA, Frames, as_first_released
from intel.regime_history import LABEL_SCHEMA

# when each observation was first published and its value then, where the source says (else null)
PUBLICATION_SCHEMA = {"published": pl.Date, "first_value": pl.Float64}

SCHEMA = """
create table if not exists observations (
    series_id varchar not null,
    date date not null,
    value double not null,
    source varchar not null,
    ingested_at timestamp not null,  -- market-clock time the value became known (UTC, naive)
    published date,  -- the day the observation was first published, where the source says (FRED's ALFRED)
    first_value double  -- its value as first published (revised series differ from `value`)
);
alter table observations add column if not exists published date;
alter table observations add column if not exists first_value double;
create table if not exists bars (
    ticker varchar not null,
    date date not null,
    open double, high double, low double, close double, volume double,
    source varchar not null,
    ingested_at timestamp not null
);
create table if not exists intraday (
    series_id varchar not null,
    ts timestamp not null,  -- the hourly candle's CLOSE time (UTC, naive): known from ts on, not before
    open double not null, high double not null, low double not null, close double not null,
    volume double not null,
    source varchar not null,
    ingested_at timestamp not null  -- revisions are appended, as for observations
);
create table if not exists module_results (
    module varchar not null,
    as_of date not null,
    computed_at timestamp not null,
    data_source varchar not null,
    payload json not null,
    primary key (module, as_of, data_source)  -- one row per module, market day and source: reruns replace
);
create table if not exists pulse_results (
    as_of date not null,
    computed_at timestamp not null,
    data_source varchar not null,
    payload json not null,
    primary key (as_of, data_source)
);
create table if not exists product_results (
    product varchar not null,  -- a derived product published beside the modules: regime, parallels, ...
    as_of date not null,
    computed_at timestamp not null,
    data_source varchar not null,
    payload json not null,
    primary key (product, as_of, data_source)
);
create table if not exists regime_daily (
    date date not null,
    data_source varchar not null,
    state varchar not null,  -- intel.regime.classify on the inputs dated on or before `date`
    p_risk_on double not null, p_neutral double not null, p_risk_off double not null, p_crisis double not null,
    data_as_of date not null,  -- the latest input observation the label read
    computed_at timestamp not null,  -- market-clock time of the run that wrote it (reruns replace)
    primary key (date, data_source)
);
create table if not exists prediction_records (
    -- an analyst's copy of the prediction record (the signed chain in SQL is the authority), one row per
    -- prediction with its resolution; rebuilt per origin by the prediction_resolutions asset
    origin varchar not null, id varchar not null, seq integer not null, hash varchar not null,
    question varchar not null, category varchar not null, series varchar not null, issued_on date not null,
    probability double not null, status varchar not null, outcome boolean, observed_value double,
    observed_on date, resolved_on date,
    primary key (origin, id)
);
create table if not exists watermarks (
    source varchar not null,  -- per source, so switching MI_SOURCE on one home never mixes histories
    series_id varchar not null,
    last_date date not null,
    updated_at timestamp not null,
    primary key (source, series_id)
);
"""

_JSON_OPTS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS
PREDICTION_SCHEMA = {"origin": pl.Utf8, "id": pl.Utf8, "seq": pl.Int64, "hash": pl.Utf8, "question": pl.Utf8,
                     "category": pl.Utf8, "series": pl.Utf8, "issued_on": pl.Date, "probability": pl.Float64,
                     "status": pl.Utf8, "outcome": pl.Boolean, "observed_value": pl.Float64, "observed_on": pl.Date,
                     "resolved_on": pl.Date}


class _Arrow:
    """Hands a polars frame to DuckDB as an Arrow C stream. DuckDB's own polars scan calls
    `to_arrow()`, which needs pyarrow; the PyCapsule protocol does not."""

    def __init__(self, frame: pl.DataFrame):
        self._frame = frame

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._frame.__arrow_c_stream__(requested_schema)


@dataclass(frozen=True)
class StoredResult:
    """One stored module or pulse result."""

    name: str
    as_of: date
    computed_at: datetime
    data_source: str
    payload: dict


def _naive_utc(moment: datetime) -> datetime:
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def _dumps(payload: dict) -> str:
    return orjson.dumps(payload, option=_JSON_OPTS, default=str).decode()


def connect_writer(path: Path, lock_timeout_s: float) -> duckdb.DuckDBPyConnection:
    """The writing connection to a DuckDB file. Runs are serialized by the Dagster run queue, but `marketintel up`'s
    in-process run or an analyst opening the live file by mistake can still hold the lock for a moment: wait,
    then fail."""
    deadline = time.monotonic() + lock_timeout_s
    while True:
        try:
            return duckdb.connect(str(path))
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.25)


def copy_atomically(con: duckdb.DuckDBPyConnection, dest: Path) -> Path:
    """Copy the whole database of `con` to `dest` atomically: build a temp file beside it, then rename, so a reader
    never sees a half-written copy (and one holding the old file open keeps its snapshot)."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    # A copy that failed or was killed half-way (a full disk, a SIGKILLed run) left its temp file behind under
    # another pid: as large as the copy got, it would keep a full disk full. Writing runs are serialized (`con`
    # holds the file's write lock), so no other copy is being built now.
    for leftover in dest.parent.glob(f".{dest.name}.*.tmp*"):
        leftover.unlink(missing_ok=True)
    source = con.execute("select current_database()").fetchone()[0]
    quoted = str(tmp).replace("'", "''")
    try:
        con.execute(f"attach '{quoted}' as copy_target")
        try:
            con.execute(f'copy from database "{source}" to copy_target')
        finally:
            con.execute("detach copy_target")
        os.replace(tmp, dest)
    except BaseException:
        # the old copy stays as it was; the half-written one goes, so the space it took comes back at once
        for partial in (tmp, tmp.with_name(tmp.name + ".wal")):
            partial.unlink(missing_ok=True)
        raise
    return dest


class Warehouse:
    """One connection to the warehouse file; use as a context manager or call `close()`."""

    def __init__(self, path: Path, lock_timeout_s: float = 60.0, read_only: bool = False):
        self.path = Path(path)
        if read_only:  # a reader of a copy (time travel reads the analyst copy): its schema is the writer's
            self.con = duckdb.connect(str(self.path), read_only=True)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.con = connect_writer(self.path, lock_timeout_s)
        self.con.execute(SCHEMA)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- observations -------------------------------------------------------------------------

    def write_observations(self, long_df: pl.DataFrame, source: str, ingested_at: datetime) -> int:
        """Append `series_id, date, value` rows from `source` as a revision known at `ingested_at`, skipping
        rows whose value equals the latest stored revision of that source for that (series_id, date).
        `published` and `first_value` columns, where the frame has them, are kept with each row.
        Advances the source's watermarks. Returns the number of rows written."""
        extra = {name: dtype for name, dtype in PUBLICATION_SCHEMA.items() if name in long_df.columns}
        incoming = (
            long_df.with_columns(pl.lit(None, dtype).alias(name) for name, dtype in PUBLICATION_SCHEMA.items()
                                 if name not in extra)
            .select([*LONG_SCHEMA, *PUBLICATION_SCHEMA])
            .cast({**LONG_SCHEMA, **PUBLICATION_SCHEMA})
            .filter(pl.col("value").is_not_null() & pl.col("value").is_finite())
            .unique(["series_id", "date"], keep="last")
        )
        if incoming.is_empty():
            return 0
        stamp = _naive_utc(ingested_at)
        lo = incoming["date"].min()
        src = _Arrow(incoming)  # noqa: F841  (scanned by name below)
        con = self.con
        con.execute("begin transaction")
        try:
            con.execute("create or replace temp table _incoming as select * from src")
            written = con.execute(
                """
                insert into observations
                select n.series_id, n.date, n.value, $source, $stamp, n.published, n.first_value
                from _incoming n
                left join (
                    select series_id, date, arg_max(value, ingested_at) as value
                    from observations
                    where source = $source and date >= $lo
                      and series_id in (select distinct series_id from _incoming)
                    group by series_id, date
                ) cur using (series_id, date)
                where cur.value is distinct from n.value
                """,
                {"source": source, "stamp": stamp, "lo": lo},
            ).fetchone()[0]
            con.execute(
                """
                insert into watermarks
                select $source, series_id, max(date), $stamp from _incoming group by series_id
                on conflict (source, series_id) do update
                set last_date = greatest(watermarks.last_date, excluded.last_date), updated_at = excluded.updated_at
                """,
                {"source": source, "stamp": stamp},
            )
            con.execute("drop table _incoming")
            con.execute("commit")
        except BaseException:
            con.execute("rollback")
            raise
        return int(written)

    def watermarks(self, source: str | None = None) -> dict[str, date]:
        """Last observation date stored per series, for one source (or the latest across sources)."""
        return dict(self.con.execute(
            "select series_id, max(last_date) from watermarks where $source is null or source = $source"
            " group by series_id", {"source": source}).fetchall())

    def first_dates(self, series_ids: Sequence[str], source: str) -> dict[str, date]:
        """The first stored observation date of each series that has any, from `source`."""
        return dict(self.con.execute(
            "select series_id, min(date) from observations where source = $source and list_contains($ids, series_id)"
            " group by series_id", {"source": source, "ids": sorted(set(series_ids))}).fetchall())

    def observations_count(self) -> int:
        return self.con.execute("select count(*) from observations").fetchone()[0]

    def frames(self, series_ids: Sequence[str], now: date, lookback_days: int, data_source: str,
               now_ts: datetime | None = None, known_at: datetime | None = None) -> Frames:
        """Point-in-time inputs from source `data_source`: dates in [now - lookback_days, now], each at its
        latest revision ingested by the end of `now`. Dates first stored after `now` (a backfill carries one
        vintage only) fall back to their first stored revision, the closest thing to what was known then.
        `known_at` (time travel): only what was released by that moment, at its revision ingested by then."""
        ids = sorted(set(series_ids))
        if not ids:
            return Frames(now=now, series={}, data_source=data_source, clock=now_ts)
        cur = self.con.execute(
            """
            select series_id, date,
                   coalesce(arg_max(value, ingested_at) filter (where ingested_at < $cutoff),
                            arg_min(value, ingested_at)) as value,
                   min(published) as published, any_value(first_value) filter (where first_value is not null)
                       as first_value
            from observations
            where source = $source and list_contains($ids, series_id) and date between $lo and $now
            group by series_id, date
            """,
            {
                "source": data_source,
                "ids": ids,
                "lo": now - timedelta(days=lookback_days),
                "now": now,
                "cutoff": (_naive_utc(known_at) if known_at is not None
                           else datetime(now.year, now.month, now.day) + timedelta(days=1)),
            },
        )
        long = self._to_polars(cur, {**LONG_SCHEMA, **PUBLICATION_SCHEMA})
        first_release: frozenset[str] = frozenset()
        if known_at is not None:
            long, first_release = as_first_released(long, known_at)
        frames = replace(Frames.from_long(long, now, data_source), first_release=first_release)
        if now_ts is None:  # without the clock's time of day, "closed by now" cannot be decided: attach none
            return frames
        return replace(frames, intraday=self.intraday_frames(ids, now_ts, data_source), clock=now_ts)

    # ---- intraday -------------------------------------------------------------------------------

    def write_intraday(self, frame: pl.DataFrame, source: str, ingested_at: datetime) -> int:
        """Append hourly candles (INTRADAY_SCHEMA) as a revision known at `ingested_at`, skipping candles equal
        to the latest stored revision of that source. Returns the number of rows written."""
        incoming = (frame.select(list(INTRADAY_SCHEMA)).cast(INTRADAY_SCHEMA)
                    .with_columns(pl.col("ts").dt.replace_time_zone(None))
                    .unique(["series_id", "ts"], keep="last"))
        if incoming.is_empty():
            return 0
        src = _Arrow(incoming)  # noqa: F841  (scanned by name below)
        return int(self.con.execute(
            """
            insert into intraday
            select n.series_id, n.ts, n.open, n.high, n.low, n.close, n.volume, $source, $stamp
            from src n
            left join (
                select series_id, ts, arg_max(struct_pack(open, high, low, close, volume), ingested_at) as cur
                from intraday where source = $source and ts >= $lo group by series_id, ts
            ) c using (series_id, ts)
            where c.cur is distinct from struct_pack(open := n.open, high := n.high, low := n.low,
                                                      close := n.close, volume := n.volume)
            """,
            {"source": source, "stamp": _naive_utc(ingested_at), "lo": incoming["ts"].min()},
        ).fetchone()[0])

    def intraday_frames(self, series_ids: Sequence[str], now_ts: datetime, data_source: str,
                        hours: int = 48) -> dict[str, pl.DataFrame]:
        """Hourly candles closed in [now_ts - hours, now_ts], each at its latest revision ingested by now_ts
        (a candle first stored later falls back to its first revision, as `frames` does for dates)."""
        now = _naive_utc(now_ts)
        cur = self.con.execute(
            """
            select series_id, ts,
                   coalesce(arg_max(struct_pack(open, high, low, close, volume), ingested_at)
                                filter (where ingested_at <= $now),
                            arg_min(struct_pack(open, high, low, close, volume), ingested_at)) as c
            from intraday
            where source = $source and list_contains($ids, series_id) and ts between $lo and $now
            group by series_id, ts
            """,
            {"source": data_source, "ids": sorted(set(series_ids)), "lo": now - timedelta(hours=hours), "now": now},
        )
        rows = [(sid, ts, c["open"], c["high"], c["low"], c["close"], c["volume"]) for sid, ts, c in cur.fetchall()]
        if not rows:
            return {}
        long = (pl.DataFrame(rows, schema=list(INTRADAY_SCHEMA), orient="row")
                .with_columns(pl.col("ts").cast(pl.Datetime("us")).dt.replace_time_zone("UTC"))
                .cast(INTRADAY_SCHEMA).sort(["series_id", "ts"]))
        return {key[0]: part.drop("series_id") for key, part in long.partition_by("series_id", as_dict=True).items()}

    # ---- bars -----------------------------------------------------------------------------------

    def write_bars(self, ticker: str, bars_df: pl.DataFrame, source: str, ingested_at: datetime) -> int:
        """Replace the stored bars of `ticker` on the dates given (bars are not revisioned)."""
        frame = bars_df.select(list(BARS_SCHEMA)).cast(BARS_SCHEMA).unique("date", keep="last")
        if frame.is_empty():
            return 0
        src = _Arrow(frame)  # noqa: F841
        con = self.con
        con.execute("begin transaction")
        try:
            con.execute(
                "delete from bars where ticker = $t and date in (select date from src)", {"t": ticker}
            )
            con.execute(
                "insert into bars select $t, date, open, high, low, close, volume, $s, $i from src",
                {"t": ticker, "s": source, "i": _naive_utc(ingested_at)},
            )
            con.execute("commit")
        except BaseException:
            con.execute("rollback")
            raise
        return frame.height

    def bars(self, ticker: str, start: date, end: date) -> pl.DataFrame:
        cur = self.con.execute(
            "select date, open, high, low, close, volume from bars"
            " where ticker = $t and date between $a and $b order by date",
            {"t": ticker, "a": start, "b": end},
        )
        return self._to_polars(cur, BARS_SCHEMA)

    # ---- results ----------------------------------------------------------------------------------

    def write_module_result(
        self, module: str, as_of: date, payload: dict, data_source: str, computed_at: datetime | None = None
    ) -> None:
        """Store a module's payload for market day `as_of` (a rerun the same day replaces it)."""
        self.con.execute(
            "insert or replace into module_results values ($m, $a, $c, $d, $p)",
            {"m": module, "a": as_of, "c": _naive_utc(computed_at or datetime.now(UTC)),
             "d": data_source, "p": _dumps(payload)},
        )

    def latest_module_results(self, data_source: str | None = None) -> dict[str, StoredResult]:
        """The newest result of every module that has one (from `data_source` only, when given)."""
        rows = self.con.execute(
            "select module, as_of, computed_at, data_source, payload from module_results"
            " where $d is null or data_source = $d"
            " qualify row_number() over (partition by module order by as_of desc, computed_at desc) = 1",
            {"d": data_source},
        ).fetchall()
        return {row[0]: _result(row) for row in rows}

    def write_pulse(
        self, as_of: date, payload: dict, data_source: str, computed_at: datetime | None = None
    ) -> None:
        self.con.execute(
            "insert or replace into pulse_results values ($a, $c, $d, $p)",
            {"a": as_of, "c": _naive_utc(computed_at or datetime.now(UTC)),
             "d": data_source, "p": _dumps(payload)},
        )

    def latest_pulse(self, data_source: str | None = None) -> StoredResult | None:
        row = self.con.execute(
            "select 'pulse', as_of, computed_at, data_source, payload from pulse_results"
            " where $d is null or data_source = $d order by as_of desc, computed_at desc limit 1",
            {"d": data_source},
        ).fetchone()
        return _result(row) if row else None

    def write_product(
        self, product: str, as_of: date, payload: dict, data_source: str, computed_at: datetime | None = None
    ) -> None:
        """Store a derived product's payload (regime, parallels, predictions, ...) for market day `as_of`; a
        rerun the same day replaces it. The publish asset serves the newest one per product."""
        self.con.execute(
            "insert or replace into product_results values ($n, $a, $c, $d, $p)",
            {"n": product, "a": as_of, "c": _naive_utc(computed_at or datetime.now(UTC)),
             "d": data_source, "p": _dumps(payload)},
        )

    def latest_products(self, data_source: str | None = None) -> dict[str, StoredResult]:
        rows = self.con.execute(
            "select product, as_of, computed_at, data_source, payload from product_results"
            " where $d is null or data_source = $d"
            " qualify row_number() over (partition by product order by as_of desc, computed_at desc) = 1",
            {"d": data_source},
        ).fetchall()
        return {row[0]: _result(row) for row in rows}

    # ---- regime history -----------------------------------------------------------------------------

    def write_regimes(self, frame: pl.DataFrame, data_source: str, computed_at: datetime) -> int:
        """Insert or replace daily regime labels (intel.regime_history.LABEL_SCHEMA) by (date, data_source)."""
        if frame.is_empty():
            return 0
        src = _Arrow(frame.select(list(LABEL_SCHEMA)).cast(LABEL_SCHEMA))  # noqa: F841 (scanned by name)
        self.con.execute(
            "insert or replace into regime_daily select date, $d, state, p_risk_on, p_neutral, p_risk_off, p_crisis,"
            " data_as_of, $c from src", {"d": data_source, "c": _naive_utc(computed_at)})
        return frame.height

    def regimes(self, data_source: str) -> pl.DataFrame:
        """The stored daily labels of `data_source`, ascending by date (LABEL_SCHEMA columns)."""
        cur = self.con.execute(
            f"select {', '.join(LABEL_SCHEMA)} from regime_daily where data_source = $d order by date",
            {"d": data_source})
        return self._to_polars(cur, LABEL_SCHEMA)

    def replace_predictions(self, origin: str, frame: pl.DataFrame) -> int:
        """The analyst's table of one origin's predictions (PREDICTION_SCHEMA), replaced whole."""
        src = _Arrow(frame.select(list(PREDICTION_SCHEMA)).cast(PREDICTION_SCHEMA))  # noqa: F841 (scanned by name)
        self.con.execute("delete from prediction_records where origin = $o", {"o": origin})
        if frame.height:
            self.con.execute(f"insert into prediction_records select {', '.join(PREDICTION_SCHEMA)} from src")
        return frame.height

    # ---- analyst copy -----------------------------------------------------------------------------

    def refresh_analyst_copy(self, dest: Path) -> Path:
        """Copy the whole warehouse to `dest` atomically (`copy_atomically`)."""
        return copy_atomically(self.con, dest)

    # ---- helpers --------------------------------------------------------------------------------

    @staticmethod
    def _to_polars(cur: duckdb.DuckDBPyConnection, schema: dict) -> pl.DataFrame:
        # fetchnumpy is several times faster than a relation's Arrow stream for these result sizes
        return pl.DataFrame(cur.fetchnumpy()).cast(schema)


def _result(row: tuple) -> StoredResult:
    name, as_of, computed_at, data_source, payload = row
    return StoredResult(name, as_of, computed_at, data_source, orjson.loads(payload))
