"""The service's Ed25519 signing key: it signs each market day's head of the record chains (intel/hash_chain.py).

Generated at first use under `<MI_HOME>/keys/`, private key as unencrypted PKCS#8 PEM with mode 0600. Creation
is atomic: each process writes a complete key to a temporary file and links it into place, and linking fails
when the name exists, so processes starting at once (gunicorn workers, `up`) all end with the one key that won.
The public key is published at /.well-known/marketintel-signing-key.json.
"""
from __future__ import annotations

import base64
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from intel.hash_chain import ALGORITHM, key_id

KEY_FILE = "signing-ed25519.pem"


@dataclass(frozen=True)
class ServiceKey:
    private: Ed25519PrivateKey

    @property
    def public_bytes(self) -> bytes:
        """The raw 32-byte public key (RFC 8032)."""
        return self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    @property
    def key_id(self) -> str:
        return key_id(self.public_bytes)

    def sign(self, message: bytes) -> str:
        """The hex of the 64-byte signature of `message`."""
        return self.private.sign(message).hex()

    def public_description(self) -> dict:
        public = self.public_bytes
        return {"algorithm": ALGORITHM, "key_id": self.key_id, "public_key_hex": public.hex(),
                "public_key_base64": base64.b64encode(public).decode()}


def key_path(home: Path) -> Path:
    return Path(home) / "keys" / KEY_FILE


def load_or_create(home: Path) -> ServiceKey:
    """The key under `home` (the settings' MI_HOME), made on first use."""
    path = key_path(home)
    if not path.exists():
        _create(path)
    return load(home)


def load(home: Path) -> ServiceKey:
    """The key under `home`; FileNotFoundError when the service has not made one (verifying never makes one)."""
    path = key_path(home)
    loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(loaded, Ed25519PrivateKey):
        raise ValueError(f"{path} holds a {type(loaded).__name__}, not an Ed25519 private key")
    return ServiceKey(loaded)


def _create(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    pem = Ed25519PrivateKey.generate().private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                     serialization.NoEncryption())
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(pem)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temporary, path)  # fails if another process linked its key first: then that one is the key
        except FileExistsError:
            pass
    finally:
        temporary.unlink(missing_ok=True)
