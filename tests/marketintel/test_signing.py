"""The service's signing key: made once under MI_HOME with owner-only permissions, the same key for every process
that starts at the same moment, and signatures that the published public key verifies."""
from __future__ import annotations

import hashlib
import multiprocessing
import stat

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from intel.hash_chain import head_message
from marketintel.signing import key_path, load, load_or_create


def test_the_key_is_made_once_private_and_its_signatures_verify(tmp_path):
    with pytest.raises(FileNotFoundError):
        load(tmp_path)  # verifying never makes a key
    key = load_or_create(tmp_path)
    path = key_path(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY")
    assert load_or_create(tmp_path).public_bytes == key.public_bytes == load(tmp_path).public_bytes
    assert key.key_id == hashlib.sha256(key.public_bytes).hexdigest()[:16]
    message = head_message("predictions:live", "2024-03-01", 7, "ab" * 32)
    signature = key.sign(message)
    Ed25519PublicKey.from_public_bytes(bytes.fromhex(key.public_description()["public_key_hex"])).verify(
        bytes.fromhex(signature), message)
    assert len(signature) == 128 and sorted(p.name for p in path.parent.iterdir()) == [path.name]


def _load_in_another_process(home: str, start, out) -> None:
    start.wait()
    out.put(load_or_create(home).public_bytes.hex())


def test_processes_starting_at_once_end_with_one_key(tmp_path):
    context = multiprocessing.get_context("spawn")
    start, out = context.Barrier(4), context.Queue()
    processes = [context.Process(target=_load_in_another_process, args=(str(tmp_path), start, out))
                 for _ in range(4)]
    for process in processes:
        process.start()
    keys = {out.get(timeout=60) for _ in processes}
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    assert keys == {load(tmp_path).public_bytes.hex()}
    assert [p.name for p in key_path(tmp_path).parent.iterdir()] == [key_path(tmp_path).name]  # no temporary left
