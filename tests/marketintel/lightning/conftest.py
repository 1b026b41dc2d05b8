"""Fixtures for the production node clients: each fake node running, and a client pointed at it (the
client is the production code; only its retry backoff is shortened so failure tests stay quick)."""
from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass

import pytest
import trustme
from pydantic import SecretStr

from marketintel.lightning.lnbits import LnbitsLightning
from marketintel.lightning.lnd import LndLightning
from marketintel.lightning.phoenixd import PhoenixdLightning
from tests.marketintel.lightning.fake_nodes import FakeLnbits, FakeLnd, FakeNode, FakePhoenixd

FAST = {"timeout_s": 5.0, "backoff_s": 0.0}


@dataclass
class Harness:
    """One backend under test: its fake node, and `client(credential=..., url=...)` building the client."""
    name: str
    server: FakeNode
    client: Callable[..., object]


@pytest.fixture(scope="session")
def lnd_tls(tmp_path_factory):
    """A throwaway CA and a certificate for 127.0.0.1/localhost; `cert_path` is what tls.cert would be."""
    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(server_context)
    cert_path = tmp_path_factory.mktemp("lnd") / "tls.cert"
    ca.cert_pem.write_to_path(str(cert_path))
    return server_context, cert_path


@pytest.fixture
def lnd_harness(lnd_tls):
    context, cert_path = lnd_tls
    with FakeLnd(context) as server:
        yield Harness("lnd", server, lambda credential=None, url=None, **kw: LndLightning(
            url or server.url, SecretStr(credential or server.credential), cert_path, **{**FAST, **kw}))


@pytest.fixture
def phoenixd_harness():
    with FakePhoenixd() as server:
        yield Harness("phoenixd", server, lambda credential=None, url=None, **kw: PhoenixdLightning(
            url or server.url, SecretStr(credential or server.credential), **{**FAST, **kw}))


@pytest.fixture
def lnbits_harness():
    with FakeLnbits() as server:
        yield Harness("lnbits", server, lambda credential=None, url=None, **kw: LnbitsLightning(
            url or server.url, SecretStr(credential or server.credential), **{**FAST, **kw}))


@pytest.fixture(params=["lnd", "phoenixd", "lnbits"])
def node(request) -> Harness:
    return request.getfixturevalue(f"{request.param}_harness")
