"""The LND, phoenixd and LNbits clients against local servers speaking each node's HTTP API: the same
behaviour is required of all three (parametrized by the `node` fixture in conftest.py)."""
from __future__ import annotations

import base64
import hashlib
import logging
import secrets
import time

import bolt11
import pytest

from marketintel.lightning import (
    BackendAuthError,
    BackendResponseError,
    BackendUnavailable,
    LightningBackend,
    LightningError,
    preimage_matches,
)
from tests.marketintel.lightning.fake_nodes import DroppingServer, closed_port_url


def sent_credential(node) -> bool:
    """The node received the configured credential in the header its API documents."""
    _, _, headers = node.server.requests[-1]
    if node.name == "lnd":
        return headers["Grpc-Metadata-macaroon"] == node.server.credential
    if node.name == "lnbits":
        return headers["X-Api-Key"] == node.server.credential
    return headers["Authorization"] == "Basic " + base64.b64encode(f":{node.server.credential}".encode()).decode()


def test_create_issues_a_checked_bolt11_and_lookup_reports_it_open(node):
    client = node.client()
    assert isinstance(client, LightningBackend) and client.name == node.name
    invoice = client.create_invoice(50, "marketintel: query (50 sats)", 600)
    decoded = bolt11.decode(invoice.bolt11)
    assert (decoded.amount_msat, decoded.payment_hash) == (50_000, invoice.payment_hash)
    assert invoice.amount_sats == 50 and invoice.memo == "marketintel: query (50 sats)"
    assert invoice.expires_at == invoice.created_at + 600 == decoded.expiry_time
    assert sent_credential(node)
    status = client.lookup(invoice.payment_hash)
    # Every one of these nodes knows the preimage of an open invoice and sends it: it must not leak out.
    assert (status.settled, status.preimage, status.amount_sats) == (False, None, 50)
    assert status.expires_at == invoice.expires_at > time.time()  # open, not expired


def test_a_paid_invoice_is_settled_with_the_preimage_that_proves_it(node):
    client = node.client()
    invoice = client.create_invoice(1234, "top up", 600)
    preimage = node.server.book.pay(invoice.payment_hash)
    status = client.lookup(invoice.payment_hash)
    assert status.settled and status.preimage == preimage and status.amount_sats == 1234
    assert hashlib.sha256(bytes.fromhex(status.preimage)).hexdigest() == invoice.payment_hash
    assert preimage_matches(invoice.payment_hash, status.preimage)


def test_an_unknown_or_malformed_hash_is_none(node):
    client = node.client()
    assert client.lookup(secrets.token_hex(32)) is None
    sent = len(node.server.requests)
    assert client.lookup("not-a-payment-hash") is None and client.lookup("AB" * 32) is None
    assert len(node.server.requests) == sent  # never put into a URL


def test_wrong_credentials_are_a_clear_auth_error_without_the_secret(node):
    right, wrong = node.server.credential, secrets.token_hex(24)
    node.server.echo_secret = True  # the node even repeats what it got in its error body
    client = node.client(credential=wrong)
    for call in (lambda: client.create_invoice(50, "query", 600), lambda: client.lookup(_known_hash(node))):
        with pytest.raises(BackendAuthError) as caught:
            call()
        message = str(caught.value)
        assert node.name in message and "MI_" in message  # says which setting to check
        assert wrong not in message and right not in message


def _known_hash(node) -> str:
    return node.client().create_invoice(10, "known", 600).payment_hash


def test_a_node_that_is_down_is_a_clear_error_after_the_retries(node):
    client = node.client(url=closed_port_url("https" if node.name == "lnd" else "http"))
    with pytest.raises(BackendUnavailable, match=r"did not answer the lookup after 3 attempt\(s\)"):
        client.lookup(secrets.token_hex(32))
    with pytest.raises(BackendUnavailable, match=r"invoice creation \(not retried.*after 1 attempt\(s\)"):
        client.create_invoice(50, "query", 600)


def test_lookups_are_retried_and_creation_is_not(node, caplog):
    with DroppingServer() as dropping:
        client = node.client(url=dropping.url("https" if node.name == "lnd" else "http"))
        with caplog.at_level(logging.WARNING), pytest.raises(BackendUnavailable):
            client.lookup(secrets.token_hex(32))
        assert dropping.connections == 3
        with pytest.raises(BackendUnavailable):
            client.create_invoice(50, "query", 600)
        assert dropping.connections == 4
    assert "attempt 1 of 3" in caplog.text and node.server.credential not in caplog.text


@pytest.mark.parametrize("tamper, words", [("amount", "51000 msat, but 50 sats"), ("hash", "payment hash")])
def test_a_node_answering_another_amount_or_hash_is_refused(node, tamper, words):
    node.server.book.tamper = tamper
    with pytest.raises(BackendResponseError, match=words):
        node.client().create_invoice(50, "query", 600)


def test_a_settled_invoice_without_a_matching_preimage_is_not_believed(node):
    client = node.client()
    invoice = client.create_invoice(50, "query", 600)
    node.server.book.pay(invoice.payment_hash)
    node.server.book.tamper = "preimage"
    with pytest.raises(BackendResponseError, match="preimage"):
        client.lookup(invoice.payment_hash)


def test_secrets_stay_out_of_reprs_and_logs(node, caplog):
    client = node.client()
    with caplog.at_level(logging.DEBUG):
        client.create_invoice(50, "query", 600)
    assert node.server.credential not in repr(client) and node.server.credential not in repr(client.http)
    assert node.server.credential not in caplog.text


@pytest.mark.parametrize("amount, expiry", [(0, 600), (-5, 600), (1.5, 600), (True, 600), (10, 0), (10, 2.5)])
def test_bad_amounts_and_expiries_are_refused_before_anything_is_sent(node, amount, expiry):
    with pytest.raises(ValueError):
        node.client().create_invoice(amount, "memo", expiry)
    assert node.server.requests == []


def test_every_refusal_is_a_lightning_error():
    assert all(issubclass(cls, LightningError) for cls in (BackendAuthError, BackendResponseError, BackendUnavailable))
