"""The chain rules alone, on records built by hand: what is canonical, and each way a listing can fail."""
from __future__ import annotations

import hashlib

import orjson
import pytest

from intel.hash_chain import GENESIS, NotCanonical, canonical, chain_hash, head_message, verify
from marketintel.signing import load_or_create

CHAIN = "predictions:live"


def test_canonical_text_is_sorted_compact_utf8_and_refuses_what_json_cannot_say():
    assert canonical({"b": 1, "a": {"z": [1.5, None], "é": "ü"}}) == '{"a":{"z":[1.5,null],"é":"ü"},"b":1}'.encode()
    for bad in ({"p": float("nan")}, {"p": [float("inf")]}, [1, 2], {1: "x"}):
        with pytest.raises(NotCanonical):
            canonical(bad)
    assert chain_hash(GENESIS, b"{}") == hashlib.sha256(bytes(32) + b"{}").hexdigest()


def build(bodies: list[tuple[str, dict, str]]) -> list[dict]:
    out, prev = [], GENESIS
    for seq, (kind, body, day) in enumerate(bodies, 1):
        text = canonical(body).decode()
        digest = chain_hash(prev, text.encode())
        out.append({"seq": seq, "kind": kind, "record_id": body["id"], "body": text, "prev_hash": prev,
                    "hash": digest, "recorded_on": day})
        prev = digest
    return out


@pytest.fixture
def key(tmp_path):
    return load_or_create(tmp_path)


def signed(key, records: list[dict], day: str, seq: int) -> dict:
    digest = records[seq - 1]["hash"]
    return {"day": day, "seq": seq, "hash": digest, "key_id": key.key_id,
            "signature": key.sign(head_message(CHAIN, day, seq, digest))}


def chain_of_three() -> list[dict]:
    p1 = {"id": "p1", "probability": 0.4}
    return build([("prediction", p1, "2024-03-01"),
                  ("prediction", {"id": "p2", "probability": 0.7}, "2024-03-01"),
                  ("resolution", {"id": "p1:resolution", "prediction_id": "p1",
                                  "prediction_hash": chain_hash(GENESIS, canonical(p1)), "outcome": True},
                   "2024-03-02")])


def failure_of(records, heads, key) -> str:
    result = verify(CHAIN, records, heads, key.public_bytes)
    assert not result.ok
    return str(result.failure)


def test_a_whole_chain_verifies_and_reports_its_unsigned_tail(key):
    records = chain_of_three()
    result = verify(CHAIN, records, [signed(key, records, "2024-03-01", 2)], key.public_bytes)
    assert result.ok and (result.records, result.heads, result.unsigned) == (3, 1, 1)
    assert str(result).endswith("(1 records after the last signed head)")


@pytest.mark.parametrize(("change", "expected"), [
    (lambda r: r.pop(1), "record 3 (p1:resolution) out of order: expected seq 2"),
    (lambda r: r[1].update(body=r[1]["body"].replace(":", ": ")), "record 2 (p2) body is not in canonical form"),
    (lambda r: r[1].update(record_id="p9"), "record 2 (p9) body id 'p2' differs from the record id"),
    (lambda r: r[1].update(prev_hash="ab" * 32), "record 2 (p2) prev_hash abab"),
    (lambda r: r[2].update(kind="prediction"),
     "record 3 (p1:resolution) kind 'prediction' but prediction_hash present"),
])
def test_each_kind_of_damage_is_named(key, change, expected):
    records = chain_of_three()
    change(records)
    assert failure_of(records, [], key).startswith(expected)


def test_a_resolution_must_carry_its_predictions_hash(key):
    records = build([("prediction", {"id": "p1"}, "2024-03-01"),
                     ("resolution", {"id": "p1:resolution", "prediction_id": "p1", "prediction_hash": "cd" * 32},
                      "2024-03-01")])
    assert failure_of(records, [], key).startswith(f"record 2 (p1:resolution) prediction_hash {'cd' * 32} is not")


def test_a_head_must_be_the_days_last_record_signed_by_the_service_key(key, tmp_path):
    records = chain_of_three()
    early = signed(key, records, "2024-03-01", 1)  # record 2 was also recorded that day
    assert failure_of(records, [early], key) == "head of 2024-03-01 (seq 1) is not the last record recorded on " \
                                                "or before 2024-03-01"
    stranger = load_or_create(tmp_path / "other")
    assert "signed with key" in failure_of(records, [signed(stranger, records, "2024-03-01", 2)], key)
    forged = {**signed(key, records, "2024-03-01", 2), "day": "2024-03-02"}  # the message names the day
    assert failure_of(records, [forged], key) == "head of 2024-03-02 (seq 2) signature does not verify"
    assert "outside the 3 records" in failure_of(records, [{**forged, "seq": 4}], key)
    assert orjson.loads(records[2]["body"])["prediction_hash"] == records[0]["hash"]
