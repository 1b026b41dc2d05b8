"""An idle keep-alive connection outlives the clients' own idle expiry (httpx: 5 s), so a client never sends a
request on a connection the server is closing (with gunicorn's default of 2 s it did: "server disconnected
without sending a response")."""
from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

import pytest

from tests.e2e.paid_load import migrate, service_env, start_gunicorn, stop

pytestmark = pytest.mark.e2e
REQUEST = b"GET /api/v1/pricing HTTP/1.1\r\nHost: x\r\n\r\n"


def response_status(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return b"closed"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lengths = [int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")]
    length = lengths[0]
    while len(body) < length:
        body += conn.recv(65536)
    return head.split(b" ")[1]


def test_an_idle_connection_is_still_open_after_the_clients_expiry(mi_home, redis_url):
    env = service_env(mi_home, redis_url, None)
    migrate(env)
    process, base = start_gunicorn(env, workers=1)
    try:
        address = urlsplit(base)
        with socket.create_connection((address.hostname, address.port), timeout=10) as conn:
            conn.sendall(REQUEST)
            assert response_status(conn) == b"200"
            time.sleep(6)  # past httpx's 5 s keep-alive expiry, and gunicorn's 2 s default
            conn.sendall(REQUEST)
            assert response_status(conn) == b"200"
    finally:
        stop(process)
