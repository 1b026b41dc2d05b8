"""Records that must be believed, stored as append-only hash chains in SQL (tables chain_records, chain_heads).

The rules (canonical body, hash, signed head message) are in intel/hash_chain.py, which also verifies. Here:
- `append` adds records in one transaction, each hashed over the previous one's hash. Writers of one chain are
  serialized (BEGIN IMMEDIATE on SQLite, an advisory lock per chain on PostgreSQL); the primary key (chain, seq)
  is the last line of defence: a writer that lost a race gets an IntegrityError, rolls back and retries from
  the new head, so two writers never fork a chain.
- Appending a record id already in the chain is a no-op that returns the stored hash, or a RecordConflict when
  the body differs: a record is never replaced.
- Records are recorded in market-date order, and a day whose head is signed is closed (DayClosed).
- A record that references another (a resolution its prediction) is refused unless that record is in the chain
  with that hash, so the store never writes a chain that fails verification.

Chains of predictions: "predictions:live" and "predictions:backtest", chosen by the record's `origin`; a back-test
record never enters the live chain.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from sqlalchemy import Connection, Engine, func, insert, select, text
from sqlalchemy.exc import IntegrityError

from intel.hash_chain import GENESIS, REFERENCES, canonical, chain_hash, head_message
from intel.hash_chain import verify as verify  # re-exported: the store's readers verify what they read

from .db import reading
from .tables import chain_heads, chain_records

ORIGINS = ("live", "backtest")
EXPORT_PAGE_MAX = 1000
_LOOKUP_CHUNK = 500
_RETRIES = 5


def prediction_chain(origin: str) -> str:
    if origin not in ORIGINS:
        raise ValueError(f"origin {origin!r} is not one of {ORIGINS}")
    return f"predictions:{origin}"


class RecordConflict(ValueError):
    """A record id already in the chain, with another body: records are never replaced."""


class DayClosed(ValueError):
    """A record dated before the chain's last record, or on or before a day whose head is already signed."""


class UnknownReference(ValueError):
    """A record that references one not in the chain (or with another hash)."""


@dataclass(frozen=True)
class Appended:
    seq: int
    record_id: str
    hash: str
    new: bool  # False: the record was already there (same body)


@dataclass(frozen=True)
class _Entry:
    kind: str
    record_id: str
    body: str
    recorded_on: date
    references: tuple[str, str] | None  # (record id, hash) it must point at


class Records:
    def __init__(self, engine: Engine):
        self.engine = engine

    def append(self, chain: str, kind: str, records: Iterable[Mapping], recorded_on: date | str) -> list[Appended]:
        """Append `records` (bodies with an `id`) of one kind, recorded on market day `recorded_on`."""
        return self.append_entries(chain, [(kind, record, recorded_on) for record in records])

    def append_entries(self, chain: str, entries: Iterable[tuple[str, Mapping, date | str]]) -> list[Appended]:
        """Append (kind, body, recorded_on) entries in order, in one transaction (a back-test's days at once)."""
        prepared = [_prepare(kind, body, recorded_on) for kind, body, recorded_on in entries]
        for attempt in range(_RETRIES):
            try:
                with self.engine.begin() as conn:
                    return _append(conn, chain, prepared)
            except IntegrityError:  # another writer took the seq first: start again from the new head
                if attempt == _RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def sign_heads(self, chain: str, day: date | str, key) -> dict | None:
        """Sign the chain's head as of the end of market day `day` with `key` (marketintel.signing.ServiceKey);
        the stored signed head, also when it was signed before, or None while the chain has no record by then."""
        day = _as_date(day)
        for attempt in range(_RETRIES):
            try:
                with self.engine.begin() as conn:
                    signed = _signed_head(conn, chain, day)
                    if signed is not None:
                        return signed
                    head = conn.execute(select(chain_records.c.seq, chain_records.c.hash)
                                        .where(chain_records.c.chain == chain, chain_records.c.recorded_on <= day)
                                        .order_by(chain_records.c.seq.desc()).limit(1)).first()
                    if head is None:
                        return None
                    row = {"chain": chain, "day": day, "seq": head.seq, "hash": head.hash, "key_id": key.key_id,
                           "signature": key.sign(head_message(chain, day.isoformat(), head.seq, head.hash))}
                    conn.execute(insert(chain_heads), row)
                    return _head_dict(row)
            except IntegrityError:  # signed at the same moment by another process: read theirs
                if attempt == _RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def listing(self, chain: str, after_seq: int = 0, limit: int = EXPORT_PAGE_MAX) -> list[dict]:
        """Records with seq > after_seq, in order, at most `limit`."""
        with reading(self.engine) as conn:
            rows = conn.execute(select(*_RECORD_COLUMNS).where(chain_records.c.chain == chain,
                                                               chain_records.c.seq > after_seq)
                                .order_by(chain_records.c.seq).limit(limit)).all()
        return [_record_dict(row) for row in rows]

    def heads(self, chain: str, after_seq: int = 0, through_seq: int | None = None) -> list[dict]:
        """Signed heads naming a seq in (after_seq, through_seq], by day."""
        query = select(chain_heads).where(chain_heads.c.chain == chain, chain_heads.c.seq > after_seq)
        if through_seq is not None:
            query = query.where(chain_heads.c.seq <= through_seq)
        with reading(self.engine) as conn:
            return [_head_dict(row._mapping) for row in conn.execute(query.order_by(chain_heads.c.day)).all()]

    def head(self, chain: str) -> dict | None:
        """The chain's last record, or None while it is empty."""
        with reading(self.engine) as conn:
            row = conn.execute(select(*_RECORD_COLUMNS).where(chain_records.c.chain == chain)
                               .order_by(chain_records.c.seq.desc()).limit(1)).first()
        return _record_dict(row) if row else None

    def count(self, chain: str) -> int:
        with reading(self.engine) as conn:
            return int(conn.scalar(select(func.count()).where(chain_records.c.chain == chain)))

    def record(self, chain: str, record_id: str) -> dict | None:
        with reading(self.engine) as conn:
            row = conn.execute(select(*_RECORD_COLUMNS).where(chain_records.c.chain == chain,
                                                              chain_records.c.record_id == record_id)).first()
        return _record_dict(row) if row else None

    def prediction_with_resolution(self, chain: str, prediction_id: str) -> tuple[dict | None, dict | None]:
        """A prediction's record and its resolution's (None while open); the contract names a resolution
        "<prediction id>:resolution"."""
        return self.record(chain, prediction_id), self.record(chain, f"{prediction_id}:resolution")


_RECORD_COLUMNS = (chain_records.c.seq, chain_records.c.kind, chain_records.c.record_id, chain_records.c.body,
                   chain_records.c.prev_hash, chain_records.c.hash, chain_records.c.recorded_on)


def _as_date(value: date | str) -> date:
    return value if isinstance(value, date) else date.fromisoformat(value)


def _prepare(kind: str, body: Mapping, recorded_on: date | str) -> _Entry:
    if not kind or len(kind) > 20:
        raise ValueError(f"kind {kind!r}: 1 to 20 characters")
    record_id = body.get("id")
    if not isinstance(record_id, str) or not 0 < len(record_id) <= 200:
        raise ValueError(f"a record's `id` is a string of 1 to 200 characters, not {record_id!r}")
    references = None
    if kind in REFERENCES:
        id_field, hash_field, _ = REFERENCES[kind]
        references = (str(body.get(id_field)), str(body.get(hash_field)))
    return _Entry(kind, record_id, canonical(body).decode(), _as_date(recorded_on), references)


def _append(conn: Connection, chain: str, entries: list[_Entry]) -> list[Appended]:
    if conn.dialect.name == "postgresql":  # SQLite's BEGIN IMMEDIATE already serializes writers
        lock = int.from_bytes(hashlib.sha256(chain.encode()).digest()[:7], "big")
        conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": lock})
    wanted = {e.record_id for e in entries} | {e.references[0] for e in entries if e.references}
    known = _stored(conn, chain, wanted)  # record id -> (seq, kind, hash, body)
    last = conn.execute(select(chain_records.c.seq, chain_records.c.hash, chain_records.c.recorded_on)
                        .where(chain_records.c.chain == chain).order_by(chain_records.c.seq.desc()).limit(1)).first()
    seq, prev, last_day = (last.seq, last.hash, last.recorded_on) if last else (0, GENESIS, None)
    signed_through = conn.scalar(select(func.max(chain_heads.c.day)).where(chain_heads.c.chain == chain))
    out, rows = [], []
    for entry in entries:
        stored = known.get(entry.record_id)
        if stored is not None:
            if stored[3] != entry.body or stored[1] != entry.kind:
                raise RecordConflict(f"{chain}: record {entry.record_id} is already stored with another body")
            out.append(Appended(stored[0], entry.record_id, stored[2], False))
            continue
        _check_order(chain, entry, last_day, signed_through)
        _check_reference(chain, entry, known)
        linked_to = prev
        seq, prev, last_day = seq + 1, chain_hash(linked_to, entry.body.encode()), entry.recorded_on
        known[entry.record_id] = (seq, entry.kind, prev, entry.body)
        rows.append({"chain": chain, "seq": seq, "kind": entry.kind, "record_id": entry.record_id,
                     "body": entry.body, "prev_hash": linked_to, "hash": prev, "recorded_on": entry.recorded_on})
        out.append(Appended(seq, entry.record_id, prev, True))
    if rows:
        conn.execute(insert(chain_records), rows)  # one executemany
    return out


def _stored(conn: Connection, chain: str, record_ids: set[str]) -> dict[str, tuple[int, str, str, str]]:
    found, ids = {}, sorted(record_ids)
    for start in range(0, len(ids), _LOOKUP_CHUNK):
        chunk = ids[start:start + _LOOKUP_CHUNK]
        query = select(chain_records.c.record_id, chain_records.c.seq, chain_records.c.kind, chain_records.c.hash,
                       chain_records.c.body).where(chain_records.c.chain == chain,
                                                   chain_records.c.record_id.in_(chunk))
        found.update({row.record_id: (row.seq, row.kind, row.hash, row.body) for row in conn.execute(query)})
    return found


def _check_order(chain: str, entry: _Entry, last_day: date | None, signed_through: date | None) -> None:
    if last_day is not None and entry.recorded_on < last_day:
        raise DayClosed(f"{chain}: {entry.record_id} is recorded on {entry.recorded_on}, before the last record "
                        f"({last_day}); records are appended in market-date order")
    if signed_through is not None and entry.recorded_on <= signed_through:
        raise DayClosed(f"{chain}: {entry.record_id} is recorded on {entry.recorded_on}, but the head of "
                        f"{signed_through} is already signed")


def _check_reference(chain: str, entry: _Entry, known: dict) -> None:
    if entry.references is None:
        return
    target_id, target_hash = entry.references
    target = known.get(target_id)
    target_kind = REFERENCES[entry.kind][2]
    if target is None or target[1] != target_kind or target[2] != target_hash:
        raise UnknownReference(f"{chain}: {entry.record_id} references {target_id} with hash {target_hash}, "
                               f"which is no {target_kind} of this chain")


def _record_dict(row) -> dict:
    return {"seq": int(row.seq), "kind": row.kind, "record_id": row.record_id, "body": row.body,
            "prev_hash": row.prev_hash, "hash": row.hash, "recorded_on": row.recorded_on.isoformat()}


def _head_dict(row: Mapping) -> dict:
    return {"day": row["day"].isoformat(), "seq": int(row["seq"]), "hash": row["hash"],
            "signature": row["signature"], "key_id": row["key_id"]}


def _signed_head(conn: Connection, chain: str, day: date) -> dict | None:
    row = conn.execute(select(chain_heads).where(chain_heads.c.chain == chain, chain_heads.c.day == day)).first()
    return _head_dict(row._mapping) if row else None


__all__ = ["EXPORT_PAGE_MAX", "ORIGINS", "Appended", "DayClosed", "RecordConflict", "Records", "UnknownReference",
           "prediction_chain", "verify"]
