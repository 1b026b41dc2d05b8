"""The rules of a hash chain of records that must be believed (predictions and their resolutions, later the
day-trade journal), and their verification. Pure: no I/O, so the service, the CLI and a third party's copy of
this file apply exactly the same rules.

- Canonical serialization of a record's body (a JSON object): UTF-8 JSON with keys sorted at every level, no
  insignificant whitespace, non-ASCII characters as themselves, floats in their shortest round-trip form, as
  orjson writes them (`orjson.dumps(body, option=orjson.OPT_SORT_KEYS)`). NaN and infinities are refused
  (JSON has no spelling for them). The stored and exported `body` is that text: a verifier hashes the text it
  is given, and need not re-serialize anything.
- `hash = sha256(bytes.fromhex(prev_hash) + canonical).hexdigest()`, 64 lowercase hex; the first record's
  `prev_hash` is GENESIS (64 zeros). Records are numbered `seq` = 1, 2, ... in chain order.
- A record's `kind` is not hashed: it is implied by the body and checked (a `resolution` is the record carrying
  `prediction_id` and `prediction_hash`, and only it does; that hash must be the referenced prediction's).
- Each market day's head is signed with the service's Ed25519 key over the UTF-8 text HEAD_MESSAGE
  (`"{chain}|{day}|{seq}|{hash}"`, day as YYYY-MM-DD): the head as of the end of that day is the last record
  recorded on or before it. The key id is the first 16 hex characters of sha256(raw 32-byte public key).
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

GENESIS = "0" * 64
ALGORITHM = "Ed25519"
HEAD_MESSAGE = "{chain}|{day}|{seq}|{hash}"
CANONICAL_RULE = ("UTF-8 JSON, object keys sorted at every level, no insignificant whitespace, non-ASCII as itself, "
                  "floats in shortest round-trip form (orjson.dumps(body, option=orjson.OPT_SORT_KEYS)); NaN and "
                  "infinities refused. The exported `body` is this text: hash it as given.")
HASH_RULE = ("hash = sha256(bytes.fromhex(prev_hash) + body_utf8).hexdigest(); the first record's prev_hash is "
             f"{GENESIS[:8]}... (64 zeros); seq counts from 1")
SIGNATURE_RULE = ("each market day's head is signed with Ed25519 over the UTF-8 text "
                  f"\"{HEAD_MESSAGE}\" (day as YYYY-MM-DD); the signature is sent as 128 hex characters; the head of "
                  "a day is the last record recorded on or before it")
KEY_ID_RULE = "key_id = the first 16 hex characters of sha256(raw 32-byte public key)"
# How a third party checks a chain (served in the well-known key document and the export's description).
VERIFY_PROCEDURE = (
    "Fetch /.well-known/marketintel-signing-key.json once and record its key_id; later fetches must show the same.",
    "Page through GET /api/v1/predictions/chain?origin=live (or backtest)&after=0&limit=1000, passing each answer's "
    "`next_after` as the next `after` until it is null; keep every record and every head.",
    "Walk the records in seq order from 1: each prev_hash must equal the previous record's hash (the first: 64 "
    "zeros), and sha256(bytes.fromhex(prev_hash) + body as UTF-8) must equal its hash. `body` is the record's "
    "canonical JSON text; parse it to read the record (its `id` is the record_id).",
    "A record of kind `resolution` carries `prediction_id` and `prediction_hash`: that prediction must appear "
    "earlier in the same chain with exactly that hash (no other kind carries `prediction_hash`).",
    "For each head: the record at its seq must have its hash, key_id must be the published key's, the signature "
    "(hex) must verify with the public key over \"{chain}|{day}|{seq}|{hash}\", and its seq must be the last record "
    "whose recorded_on is on or before its day.",
    "Or run `marketintel predictions verify --url <service> --api-key <key> [--origin backtest] [--key-id <id>]`, "
    "which does exactly this and names the first record or head that fails.",
)
# A record of this kind references an earlier record: kind -> (id field, hash field, kind referenced).
REFERENCES = {"resolution": ("prediction_id", "prediction_hash", "prediction")}


class NotCanonical(ValueError):
    """A body that has no canonical serialization (not an object, NaN, infinities, non-string keys)."""


def canonical(body: Mapping) -> bytes:
    if not isinstance(body, Mapping):
        raise NotCanonical(f"a record body is a JSON object, not {type(body).__name__}")
    _refuse_non_finite(body)
    try:
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError as exc:
        raise NotCanonical(str(exc)) from None


def _refuse_non_finite(value) -> None:
    # orjson writes NaN as null: a silent change of the record, so refuse it before serializing.
    if isinstance(value, float) and not math.isfinite(value):
        raise NotCanonical(f"{value} has no JSON spelling")
    if isinstance(value, Mapping):
        for item in value.values():
            _refuse_non_finite(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _refuse_non_finite(item)


def chain_hash(prev_hash: str, body: bytes) -> str:
    return hashlib.sha256(bytes.fromhex(prev_hash) + body).hexdigest()


def head_message(chain: str, day: str, seq: int, hash_: str) -> bytes:
    return HEAD_MESSAGE.format(chain=chain, day=day, seq=seq, hash=hash_).encode()


def key_id(public_key: bytes) -> str:
    return hashlib.sha256(public_key).hexdigest()[:16]


@dataclass(frozen=True)
class Failure:
    seq: int
    what: str  # the record's id, or "head of <day>"
    reason: str

    def __str__(self) -> str:
        if self.what.startswith("head of"):
            return f"{self.what} (seq {self.seq}) {self.reason}"
        return f"record {self.seq} ({self.what}) {self.reason}"


@dataclass(frozen=True)
class VerifyResult:
    chain: str
    records: int  # records checked (up to the failure, if any)
    heads: int  # signed heads checked
    head_seq: int
    head_hash: str
    unsigned: int  # records after the last signed head (signed at the end of their market day)
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    def __str__(self) -> str:
        if self.failure is not None:
            return f"chain {self.chain}: {self.failure}"
        tail = f" ({self.unsigned} records after the last signed head)" if self.unsigned else ""
        return (f"verified {self.records} records, {self.heads} signed heads, chain {self.chain} "
                f"head {self.head_hash}{tail}")


def verify(chain: str, records: Iterable[Mapping], heads: Iterable[Mapping], public_key: bytes) -> VerifyResult:
    """Recompute the chain from its records, in seq order, and check the signed heads against it.

    `records`: {seq, kind, record_id, body (canonical text), prev_hash, hash, recorded_on}; `heads`: {day, seq,
    hash, signature (hex), key_id}; `public_key`: the raw 32-byte Ed25519 public key. Stops at the first failure
    and names it."""
    walk = _Walk()
    for record in records:
        reason = walk.step(record)
        if reason:
            return walk.result(chain, 0, Failure(int(record["seq"]), str(record["record_id"]), reason))
    signed = sorted(heads, key=lambda head: head["day"])
    for head in signed:
        reason = _head_reason(chain, head, walk, public_key)
        if reason:
            return walk.result(chain, 0, Failure(int(head["seq"]), f"head of {head['day']}", reason))
    return walk.result(chain, len(signed), None, max((int(h["seq"]) for h in signed), default=0))


class _Walk:
    """What the records seen so far established: their hashes by seq, and by id with their kind."""

    def __init__(self):
        self.hashes: list[str] = [GENESIS]  # index = seq
        self.recorded_on: list[str] = [""]
        self.by_id: dict[str, tuple[str, str]] = {}  # record id -> (kind, hash)

    def step(self, record: Mapping) -> str | None:
        seq, prev = int(record["seq"]), self.hashes[-1]
        if seq != len(self.hashes):
            return f"out of order: expected seq {len(self.hashes)}"
        if record["prev_hash"] != prev:
            return f"prev_hash {record['prev_hash']} does not link to the previous record's hash {prev}"
        text = record["body"]
        reason = _body_reason(record, text)
        if reason:
            return reason
        recomputed = chain_hash(prev, text.encode())
        if recomputed != record["hash"]:
            return f"hash mismatch: stored {record['hash']}, recomputed {recomputed}"
        reason = self._reference_reason(record["kind"], orjson.loads(text))
        if reason:
            return reason
        self.hashes.append(recomputed)
        self.recorded_on.append(str(record.get("recorded_on") or ""))
        self.by_id[str(record["record_id"])] = (record["kind"], recomputed)
        return None

    def _reference_reason(self, kind: str, body: dict) -> str | None:
        for ref_kind, (id_field, hash_field, target_kind) in REFERENCES.items():
            if (kind == ref_kind) != (hash_field in body):
                return f"kind {kind!r} but {hash_field} {'absent' if kind == ref_kind else 'present'}"
            if kind != ref_kind:
                continue
            target = self.by_id.get(str(body.get(id_field)))
            if target is None or target[0] != target_kind:
                return f"references {body.get(id_field)}, which is no earlier {target_kind} in this chain"
            if target[1] != body[hash_field]:
                return f"{hash_field} {body[hash_field]} is not the hash of {body[id_field]} ({target[1]})"
        return None

    def result(self, chain: str, heads: int, failure: Failure | None, last_signed: int = 0) -> VerifyResult:
        count = len(self.hashes) - 1
        return VerifyResult(chain, count, heads, count, self.hashes[-1], count - last_signed, failure)


def _body_reason(record: Mapping, text: str) -> str | None:
    try:
        body = orjson.loads(text)
        if canonical(body).decode() != text:
            return "body is not in canonical form"
    except (orjson.JSONDecodeError, NotCanonical) as exc:
        return f"body is not a canonical JSON object: {exc}"
    if body.get("id") != record["record_id"]:
        return f"body id {body.get('id')!r} differs from the record id"
    return None


def _head_reason(chain: str, head: Mapping, walk: _Walk, public_key: bytes) -> str | None:
    seq, day = int(head["seq"]), str(head["day"])
    if not 1 <= seq < len(walk.hashes):
        return f"names seq {seq}, outside the {len(walk.hashes) - 1} records listed"
    if head["hash"] != walk.hashes[seq]:
        return f"signed hash {head['hash']} differs from the chain's hash at that seq {walk.hashes[seq]}"
    if head["key_id"] != key_id(public_key):
        return f"signed with key {head['key_id']}, not the service key {key_id(public_key)}"
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(bytes.fromhex(head["signature"]),
                                                             head_message(chain, day, seq, head["hash"]))
    except (InvalidSignature, ValueError):
        return "signature does not verify"
    recorded = walk.recorded_on
    if recorded[seq] and (recorded[seq] > day or (seq + 1 < len(recorded) and recorded[seq + 1] <= day)):
        return f"is not the last record recorded on or before {day}"
    return None
