"""A built-in development Lightning node: real, signed BOLT11 invoices, paid by `marketintel dev pay`.

No channels and no network: paying means this node releasing the preimage it generated. Its state is a
small SQLite file under MI_HOME, shared by every process on the machine (API workers and the CLI), and
its identity is a secp256k1 key created once, so invoices keep the same payee across restarts.
"""
from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import bolt11
from bolt11 import Bolt11, MilliSatoshi, Tags
from coincurve import PrivateKey

from warehouse.sqlite_wal import enable_wal

from .base import Invoice, InvoiceExpired, InvoiceStatus, UnknownInvoice

_SCHEMA = """
CREATE TABLE IF NOT EXISTS invoices (
    payment_hash TEXT PRIMARY KEY,
    bolt11 TEXT NOT NULL,
    preimage TEXT NOT NULL,
    amount_sats INTEGER NOT NULL,
    memo TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    settled_at INTEGER
)
"""
_BUSY_TIMEOUT_S = 10


class DevLightning:
    name = "dev"

    def __init__(self, home: Path, network: str = "bcrt", clock: Callable[[], float] = time.time):
        self.folder = Path(home) / "lightning"
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # holds preimages and the key
        self.network = network
        self._clock = clock  # tests move time instead of sleeping through an expiry
        self._key = _load_or_create_key(self.folder / "node.key")
        self.db_path = self.folder / "devnode.sqlite"
        with closing(self._connect()) as conn:
            conn.execute(_SCHEMA)

    @property
    def node_pubkey(self) -> str:
        """Compressed public key (hex): the payee of every invoice this node signs."""
        return self._key.public_key.format(compressed=True).hex()

    def create_invoice(self, amount_sats: int, memo: str, expiry_s: int) -> Invoice:
        if not isinstance(amount_sats, int) or isinstance(amount_sats, bool) or amount_sats <= 0:
            raise ValueError(f"amount_sats must be a positive integer, got {amount_sats!r}")
        if not isinstance(expiry_s, int) or expiry_s <= 0:
            raise ValueError(f"expiry_s must be a positive integer, got {expiry_s!r}")
        preimage = secrets.token_bytes(32)
        payment_hash = hashlib.sha256(preimage).hexdigest()
        created_at = int(self._clock())
        invoice = Bolt11(
            currency=self.network,
            amount_msat=MilliSatoshi(amount_sats * 1000),
            date=created_at,
            tags=Tags.from_dict({"p": payment_hash, "d": memo, "s": secrets.token_hex(32), "x": expiry_s}),
        )
        encoded = bolt11.encode(invoice, self._key.to_hex())
        with closing(self._connect()) as conn:
            conn.execute(
                "INSERT INTO invoices (payment_hash, bolt11, preimage, amount_sats, memo, created_at, expires_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (payment_hash, encoded, preimage.hex(), amount_sats, memo, created_at, created_at + expiry_s))
        return Invoice(bolt11=encoded, payment_hash=payment_hash, amount_sats=amount_sats, memo=memo,
                       created_at=created_at, expires_at=created_at + expiry_s)

    def pay(self, invoice: str) -> str:
        """Pay an invoice this node issued; returns the preimage (hex). Paying twice returns the same one."""
        payment_hash = self._verified_hash(invoice)
        with closing(self._connect()) as conn:
            conn.execute("BEGIN IMMEDIATE")  # read-check-write as one step across processes
            try:
                row = conn.execute("SELECT bolt11, preimage, expires_at, settled_at FROM invoices"
                                   " WHERE payment_hash = ?", (payment_hash,)).fetchone()
                if row is None or row[0] != invoice.strip().lower():
                    raise UnknownInvoice(f"this node did not issue an invoice with hash {payment_hash}")
                issued, preimage, expires_at, settled_at = row
                if settled_at is None:
                    now = int(self._clock())
                    if now > expires_at:
                        raise InvoiceExpired(f"invoice {payment_hash} expired at {expires_at}")
                    conn.execute("UPDATE invoices SET settled_at = ? WHERE payment_hash = ?", (now, payment_hash))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return preimage

    def lookup(self, payment_hash: str) -> InvoiceStatus | None:
        with closing(self._connect()) as conn:
            row = conn.execute("SELECT amount_sats, preimage, expires_at, settled_at FROM invoices"
                               " WHERE payment_hash = ?", (payment_hash,)).fetchone()
        if row is None:
            return None
        amount_sats, preimage, expires_at, settled_at = row
        settled = settled_at is not None
        return InvoiceStatus(payment_hash=payment_hash, settled=settled, amount_sats=amount_sats,
                             preimage=preimage if settled else None, expires_at=expires_at)

    def _verified_hash(self, invoice: str) -> str:
        """Decode, check the signature is this node's and the network is ours; the payment hash."""
        try:
            decoded = bolt11.decode(invoice.strip())
        except Exception as exc:  # the library raises assorted types for malformed input
            raise UnknownInvoice(f"not a valid BOLT11 invoice: {exc!r}") from exc
        if decoded.payee != self.node_pubkey:
            raise UnknownInvoice("invoice is signed by another node")
        if decoded.currency != self.network:
            raise UnknownInvoice(f"invoice is for network {decoded.currency!r}, this node is {self.network!r}")
        return decoded.payment_hash

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: autocommit, with explicit BEGIN IMMEDIATE where a step must be atomic.
        conn = sqlite3.connect(self.db_path, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_S * 1000}")
        try:
            enable_wal(conn, _BUSY_TIMEOUT_S)
        except sqlite3.OperationalError:
            conn.close()
            raise
        return conn


def _load_or_create_key(path: Path) -> PrivateKey:
    """Read the node key, creating it once. Written to a private temp file then hard-linked into place,
    so two processes starting together agree on one key and never read a half-written file."""
    if not path.exists():
        temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_hex(32))
            os.link(temp, path)
        except FileExistsError:
            pass  # another process won; use its key
        finally:
            temp.unlink(missing_ok=True)
    return PrivateKey(bytes.fromhex(path.read_text().strip()))
