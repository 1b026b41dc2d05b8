from __future__ import annotations

import hashlib
import secrets

import pytest

from marketintel.lightning import preimage_matches


def test_the_right_preimage_matches():
    preimage = secrets.token_bytes(32)
    assert preimage_matches(hashlib.sha256(preimage).hexdigest(), preimage.hex())
    assert preimage_matches(hashlib.sha256(preimage).hexdigest().upper(), preimage.hex().upper())


def test_a_wrong_preimage_does_not_match():
    payment_hash = hashlib.sha256(secrets.token_bytes(32)).hexdigest()
    assert not preimage_matches(payment_hash, secrets.token_bytes(32).hex())


def test_the_hash_itself_is_not_a_preimage():
    preimage = secrets.token_bytes(32)
    payment_hash = hashlib.sha256(preimage).hexdigest()
    assert not preimage_matches(payment_hash, payment_hash)


@pytest.mark.parametrize("payment_hash, preimage", [
    ("zz" * 32, "00" * 32),
    ("00" * 32, "not hex"),
    ("00" * 32, "abc"),
    ("00" * 16, "00" * 32),
    ("", ""),
    (None, "00" * 32),
    ("00" * 32, None),
])
def test_malformed_input_is_false_not_an_error(payment_hash, preimage):
    assert preimage_matches(payment_hash, preimage) is False
