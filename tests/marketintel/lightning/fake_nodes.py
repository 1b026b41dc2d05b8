"""Local stand-ins for LND's REST proxy, phoenixd and LNbits: each speaks the documented HTTP API (paths,
authentication, field names and units, error statuses and bodies as the real ones send them) and issues
REAL BOLT11 invoices signed with its own key, as the dev node does. `book.pay(payment_hash)` plays the
payer. Knobs make a node misbehave the ways a test needs: `book.tamper` ("amount": sign one sat more than
asked, "hash": report another payment hash, "preimage": release a wrong preimage once paid) and
`echo_secret` (put the credential it received into its error bodies)."""
from __future__ import annotations

import base64
import hashlib
import json
import secrets
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import bolt11
from bolt11 import Bolt11, MilliSatoshi, Tags
from coincurve import PrivateKey


class InvoiceBook:
    """A node's invoices: payment hash -> record, with the preimage the node made."""

    def __init__(self, network: str = "bcrt"):
        self.key, self.network = PrivateKey(), network
        self.invoices: dict[str, dict] = {}
        self.tamper: str | None = None
        self.lock = threading.Lock()

    def issue(self, amount_sats: int, memo: str, expiry_s: int) -> dict:
        preimage = secrets.token_bytes(32)
        payment_hash = hashlib.sha256(preimage).hexdigest()
        signed_sats = amount_sats + 1 if self.tamper == "amount" else amount_sats
        created_at = int(time.time())
        encoded = bolt11.encode(Bolt11(
            currency=self.network, amount_msat=MilliSatoshi(signed_sats * 1000), date=created_at,
            tags=Tags.from_dict({"p": payment_hash, "d": memo, "s": secrets.token_hex(32), "x": expiry_s})),
            self.key.to_hex())
        record = {"payment_hash": payment_hash, "preimage": preimage.hex(), "bolt11": encoded, "memo": memo,
                  "amount_sats": amount_sats, "created_at": created_at, "expiry": expiry_s, "paid_at": None,
                  "reported_hash": secrets.token_hex(32) if self.tamper == "hash" else payment_hash}
        with self.lock:
            self.invoices[payment_hash] = record
        return record

    def pay(self, payment_hash: str) -> str:
        with self.lock:
            record = self.invoices[payment_hash]
            record["paid_at"] = record["paid_at"] or int(time.time())
        return record["preimage"]

    def released_preimage(self, record: dict) -> str:
        return secrets.token_hex(32) if self.tamper == "preimage" else record["preimage"]


class FakeNode:
    """A threaded HTTP(S) server on a free local port; subclasses answer `answer(...)`."""

    credential = ""

    def __init__(self, tls: ssl.SSLContext | None = None):
        self.book = InvoiceBook()
        self.echo_secret = False
        self.requests: list[tuple[str, str, dict]] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Handler,), {"node": self}))
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.scheme = "https" if tls else "http"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def error_text(self, text: str, received: str) -> str:
        return f"{text} (got {received})" if self.echo_secret else text

    def answer(self, method: str, path: str, headers, body: bytes) -> tuple[int, object]:
        raise NotImplementedError


class _Handler(BaseHTTPRequestHandler):
    node: FakeNode

    def log_message(self, *args):
        pass

    def _serve(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.node.requests.append((self.command, self.path, dict(self.headers)))
        status, payload = self.node.answer(self.command, self.path, self.headers, body)
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain" if isinstance(payload, str) else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _serve


def _b64(hex_value: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_value)).decode()


class FakeLnd(FakeNode):
    """LND's REST proxy: macaroon header, int64 as strings, bytes as base64, gRPC status bodies."""

    def __init__(self, tls: ssl.SSLContext):
        super().__init__(tls)
        self.macaroon = secrets.token_bytes(48)
        self.credential = self.macaroon.hex()
        self.legacy_not_found: str | None = None  # older LND: HTTP 500, gRPC code 2 (Unknown), this message
        self.add_index = 0

    def answer(self, method, path, headers, body):
        received = headers.get("Grpc-Metadata-macaroon", "")
        if received != self.credential:
            return 500, {"code": 2, "message": self.error_text(
                "verification failed: signature mismatch after caveat verification", received), "details": []}
        if method == "POST" and path == "/v1/invoices":
            request = json.loads(body)
            record = self.book.issue(int(request["value"]), request.get("memo", ""), int(request.get("expiry", 3600)))
            self.add_index += 1
            return 200, {"r_hash": _b64(record["reported_hash"]), "payment_request": record["bolt11"],
                         "add_index": str(self.add_index), "payment_addr": _b64(secrets.token_hex(32))}
        if method == "GET" and path.startswith("/v1/invoice/"):
            record = self.book.invoices.get(path.rsplit("/", 1)[1])
            if record is None:
                return (500, {"code": 2, "message": self.legacy_not_found, "details": []}) \
                    if self.legacy_not_found else (404, {"code": 5, "message": "unable to locate invoice",
                                                         "details": []})
            paid = record["paid_at"] is not None
            return 200, {
                "memo": record["memo"], "r_preimage": _b64(self.book.released_preimage(record)),
                "r_hash": _b64(record["payment_hash"]), "value": str(record["amount_sats"]),
                "value_msat": str(record["amount_sats"] * 1000), "settled": paid,
                "creation_date": str(record["created_at"]), "settle_date": str(record["paid_at"] or 0),
                "payment_request": record["bolt11"], "expiry": str(record["expiry"]), "add_index": "1",
                "amt_paid_sat": str(record["amount_sats"] if paid else 0), "state": "SETTLED" if paid else "OPEN"}
        return 404, {"code": 5, "message": "Not Found", "details": []}


class FakePhoenixd(FakeNode):
    """phoenixd: basic auth (empty user), form parameters, plain-text errors, IncomingPayment JSON."""

    def __init__(self):
        super().__init__()
        self.credential = secrets.token_hex(32)
        self.fee_sat = 0  # taken by the LSP from an incoming payment (liquidity): receivedSat is net of it

    def answer(self, method, path, headers, body):
        scheme, _, encoded = headers.get("Authorization", "").partition(" ")
        user, _, password = base64.b64decode(encoded or "").decode().partition(":")
        if scheme != "Basic" or user != "" or password != self.credential:
            return 401, self.error_text("Invalid authentication (use basic auth with the http password set in "
                                        "phoenix.conf)", password)
        if method == "POST" and path == "/createinvoice":
            form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
            if len(form.get("description", "")) > 128:
                return 400, "Request parameter description is too long (max 128 characters)"
            record = self.book.issue(int(form["amountSat"]), form["description"], int(form.get("expirySeconds", 3600)))
            return 200, {"amountSat": record["amount_sats"], "paymentHash": record["reported_hash"],
                         "serialized": record["bolt11"]}
        if method == "GET" and path.startswith("/payments/incoming/"):
            record = self.book.invoices.get(path.rsplit("/", 1)[1])
            if record is None:
                return 404, "Unknown endpoint (check api doc)"
            paid = record["paid_at"] is not None
            return 200, {"type": "incoming_payment", "subType": "lightning", "paymentHash": record["payment_hash"],
                         "preimage": self.book.released_preimage(record), "externalId": None,
                         "description": record["memo"], "invoice": record["bolt11"], "isPaid": paid,
                         "receivedSat": record["amount_sats"] - self.fee_sat if paid else 0,
                         "fees": self.fee_sat * 1000 if paid else 0,
                         "completedAt": record["paid_at"] * 1000 if paid else None,
                         "createdAt": record["created_at"] * 1000}
        return 404, "Unknown endpoint (check api doc)"


class FakeLnbits(FakeNode):
    """An LNbits wallet: X-Api-Key, JSON; `style` "new" (1.x Payment bodies) or "old" (0.x)."""

    def __init__(self, style: str = "new"):
        super().__init__()
        self.credential = secrets.token_hex(16)
        self.wallet_id, self.style = secrets.token_hex(16), style
        self.msat_extra = 0  # added to the recorded amount: a record that is not a whole number of sats

    def answer(self, method, path, headers, body):
        received = headers.get("X-Api-Key", "")
        ours = received == self.credential
        if method == "POST" and path == "/api/v1/payments":
            if not ours:
                return 404, {"detail": self.error_text("Wallet not found.", received)}
            request = json.loads(body)
            assert request["out"] is False and request["unit"] == "sat", request
            record = self.book.issue(int(request["amount"]), request.get("memo", ""), int(request.get("expiry", 3600)))
            if self.style == "old":
                return 201, {"payment_hash": record["reported_hash"], "payment_request": record["bolt11"],
                             "checking_id": record["payment_hash"], "lnurl_response": None}
            return 201, {**self._payment(record), "payment_hash": record["reported_hash"]}
        if method == "GET" and path.startswith("/api/v1/payments/"):
            record = self.book.invoices.get(path.rsplit("/", 1)[1])
            if record is None:
                return 404, {"detail": "Payment does not exist."}
            paid = record["paid_at"] is not None
            answer = {"paid": paid, "preimage": self.book.released_preimage(record) if paid else None}
            if self.style == "new":
                answer["status"] = "success" if paid else "pending"
            return 200, {**answer, "details": self._payment(record)} if ours else answer
        return 404, {"detail": "Not Found"}

    def _payment(self, record: dict) -> dict:
        paid = record["paid_at"] is not None
        payment = {"checking_id": record["payment_hash"], "payment_hash": record["payment_hash"],
                   "wallet_id": self.wallet_id, "amount": record["amount_sats"] * 1000 + self.msat_extra, "fee": 0,
                   "bolt11": record["bolt11"], "memo": record["memo"], "preimage": record["preimage"]}
        if self.style == "old":
            return {**payment, "pending": not paid, "expiry": record["created_at"] + record["expiry"]}
        return {**payment, "payment_request": record["bolt11"], "status": "success" if paid else "pending",
                "expiry": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record["created_at"] + record["expiry"]))}


class DroppingServer:
    """Accepts TCP connections and closes them at once, counting them: a node that is up but answers
    nothing, to count how many attempts a client makes."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.1)
        self.connections = 0
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def url(self, scheme: str = "http") -> str:
        return f"{scheme}://127.0.0.1:{self.sock.getsockname()[1]}"

    def _run(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            conn.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self.thread.join(2)
        self.sock.close()


def closed_port_url(scheme: str = "http") -> str:
    """An address where nothing listens (a port just released)."""
    with socket.create_server(("127.0.0.1", 0)) as sock:
        port = sock.getsockname()[1]
    return f"{scheme}://127.0.0.1:{port}"
