from __future__ import annotations

import hashlib
import stat

import bolt11
import pytest
from bolt11 import Bolt11, MilliSatoshi, Tags
from coincurve import PrivateKey

from marketintel.lightning import InvoiceExpired, LightningBackend, UnknownInvoice, make_backend
from marketintel.lightning.dev import DevLightning


class Clock:
    def __init__(self, now: float = 1_800_000_000):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def node(tmp_path):
    return DevLightning(tmp_path)


def test_invoice_is_a_real_bolt11_signed_by_the_node(node):
    invoice = node.create_invoice(1234, "top up 1234 sats", expiry_s=600)
    decoded = bolt11.decode(invoice.bolt11)
    assert invoice.bolt11.startswith("lnbcrt12340n1")
    assert decoded.payee == node.node_pubkey
    assert decoded.amount_msat == 1_234_000 and invoice.amount_sats == 1234
    assert decoded.payment_hash == invoice.payment_hash
    assert decoded.description == "top up 1234 sats" == invoice.memo
    assert decoded.expiry == 600 and invoice.expires_at == invoice.created_at + 600 == decoded.expiry_time
    assert decoded.payment_secret and decoded.currency == "bcrt"


def test_pay_releases_the_preimage_and_lookup_reports_it(node):
    invoice = node.create_invoice(50, "query", expiry_s=600)
    before = node.lookup(invoice.payment_hash)
    assert (before.settled, before.preimage, before.amount_sats) == (False, None, 50)
    preimage = node.pay(invoice.bolt11)
    assert hashlib.sha256(bytes.fromhex(preimage)).hexdigest() == invoice.payment_hash
    after = node.lookup(invoice.payment_hash)
    assert (after.settled, after.preimage, after.expires_at) == (True, preimage, invoice.expires_at)
    assert node.pay(invoice.bolt11) == preimage  # paying again is harmless and changes nothing
    assert node.lookup("00" * 32) is None


def test_each_invoice_has_its_own_preimage(node):
    first, second = node.create_invoice(50, "a", 600), node.create_invoice(50, "a", 600)
    assert first.payment_hash != second.payment_hash
    assert node.pay(first.bolt11) != node.pay(second.bolt11)


def test_expired_invoice_is_refused_and_stays_unsettled(tmp_path):
    clock = Clock()
    node = DevLightning(tmp_path, clock=clock)
    invoice = node.create_invoice(50, "query", expiry_s=60)
    clock.now += 61
    with pytest.raises(InvoiceExpired):
        node.pay(invoice.bolt11)
    status = node.lookup(invoice.payment_hash)
    assert not status.settled and status.expires_at < clock.now


def test_invoice_signed_by_another_key_is_refused(node, tmp_path):
    stranger = DevLightning(tmp_path / "stranger")
    foreign = stranger.create_invoice(50, "query", 600)
    with pytest.raises(UnknownInvoice):
        node.pay(foreign.bolt11)


def test_forged_invoice_reusing_our_payment_hash_is_refused(node):
    """Someone re-signs our payment hash with their own key: the payee check catches it."""
    ours = node.create_invoice(50, "query", 600)
    forged = bolt11.encode(Bolt11(currency="bcrt", amount_msat=MilliSatoshi(1000), date=ours.created_at,
                                  tags=Tags.from_dict({"p": ours.payment_hash, "d": "query", "s": "11" * 32,
                                                       "x": 600})), PrivateKey().to_hex())
    with pytest.raises(UnknownInvoice):
        node.pay(forged)
    assert not node.lookup(ours.payment_hash).settled


@pytest.mark.parametrize("garbage", ["", "lnbcrt1garbage", "hello world"])
def test_malformed_invoice_is_refused(node, garbage):
    with pytest.raises(UnknownInvoice):
        node.pay(garbage)


def test_invoice_for_another_network_is_refused(tmp_path):
    testnet = DevLightning(tmp_path, network="tb")
    regtest = DevLightning(tmp_path, network="bcrt")  # same key, same state, other network
    invoice = testnet.create_invoice(50, "query", 600)
    assert invoice.bolt11.startswith("lntb")
    with pytest.raises(UnknownInvoice):
        regtest.pay(invoice.bolt11)


def test_two_instances_on_one_home_share_key_and_state(tmp_path):
    """As the API server and the `marketintel dev pay` CLI would, in two processes."""
    server, cli = DevLightning(tmp_path), DevLightning(tmp_path)
    assert server.node_pubkey == cli.node_pubkey
    invoice = server.create_invoice(500, "top up", 600)
    preimage = cli.pay(invoice.bolt11)
    assert server.lookup(invoice.payment_hash).preimage == preimage


def test_node_key_is_private_and_survives_restarts(tmp_path):
    first = DevLightning(tmp_path)
    key_file = tmp_path / "lightning" / "node.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert DevLightning(tmp_path).node_pubkey == first.node_pubkey
    assert DevLightning(tmp_path / "elsewhere").node_pubkey != first.node_pubkey


@pytest.mark.parametrize("amount, expiry", [(0, 600), (-1, 600), (1.5, 600), (10, 0)])
def test_create_invoice_rejects_bad_amounts_and_expiries(node, amount, expiry):
    with pytest.raises(ValueError):
        node.create_invoice(amount, "memo", expiry)


def test_factory_builds_the_dev_node_from_settings(mi_home, monkeypatch):
    monkeypatch.setenv("MI_LIGHTNING_NETWORK", "tb")
    from marketintel.settings import get_settings

    get_settings.cache_clear()
    backend = make_backend(get_settings())
    assert isinstance(backend, DevLightning) and isinstance(backend, LightningBackend)
    assert backend.name == "dev" and backend.network == "tb"
    assert (mi_home / "lightning" / "node.key").exists()
    assert backend.create_invoice(10, "memo", 60).bolt11.startswith("lntb")


def test_a_payment_made_by_another_process_is_seen_here(tmp_path):
    import subprocess
    import sys

    server = DevLightning(tmp_path)
    invoice = server.create_invoice(500, "top up", 600)
    code = ("import sys; from pathlib import Path; from marketintel.lightning.dev import DevLightning; "
            "print(DevLightning(Path(sys.argv[1])).pay(sys.argv[2]))")
    paid = subprocess.run([sys.executable, "-c", code, str(tmp_path), invoice.bolt11],
                          capture_output=True, text=True, timeout=60, check=True)
    status = server.lookup(invoice.payment_hash)
    assert status.settled and status.preimage == paid.stdout.strip()
