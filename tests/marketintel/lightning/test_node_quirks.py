"""What is particular to each node's API (error shapes, encodings, versions), and the factory building
each client from MI_* settings."""
from __future__ import annotations

import secrets

import pytest
import trustme
from pydantic import SecretStr

from marketintel.lightning import BackendAuthError, BackendResponseError, BackendUnavailable, make_backend
from marketintel.lightning.dev import DevLightning
from marketintel.lightning.lnbits import LnbitsLightning
from marketintel.lightning.lnd import LndLightning
from marketintel.lightning.phoenixd import PhoenixdLightning
from tests.marketintel.lightning.conftest import FAST
from tests.marketintel.lightning.fake_nodes import FakeLnbits

# LND

@pytest.mark.parametrize("message", ["unable to locate invoice", "there are no existing invoices"])
def test_lnd_older_versions_answer_an_unknown_invoice_with_500(lnd_harness, message):
    lnd_harness.server.legacy_not_found = message
    assert lnd_harness.client().lookup(secrets.token_hex(32)) is None


def test_lnd_certificate_is_the_only_one_trusted(lnd_harness, tmp_path):
    stranger = tmp_path / "other-tls.cert"
    trustme.CA().cert_pem.write_to_path(str(stranger))
    client = LndLightning(lnd_harness.server.url, SecretStr(lnd_harness.server.credential), stranger, **FAST)
    with pytest.raises(BackendUnavailable, match="TLS certificate is not trusted") as caught:
        client.lookup(secrets.token_hex(32))
    assert "attempt" not in str(caught.value)  # not retried: it cannot get better
    assert lnd_harness.server.requests == []  # the macaroon never went to a server we do not trust


def test_lnd_macaroon_file_is_sent_as_hex(lnd_harness, lnd_tls, tmp_path):
    macaroon = tmp_path / "invoice.macaroon"
    macaroon.write_bytes(lnd_harness.server.macaroon)
    client = LndLightning.from_files(lnd_harness.server.url, macaroon, lnd_tls[1], **FAST)
    client.create_invoice(21, "memo", 60)
    assert lnd_harness.server.requests[-1][2]["Grpc-Metadata-macaroon"] == lnd_harness.server.macaroon.hex()
    with pytest.raises(ValueError, match="cannot read the LND macaroon file"):
        LndLightning.from_files(lnd_harness.server.url, tmp_path / "missing", lnd_tls[1])
    with pytest.raises(ValueError, match="hex"):
        LndLightning(lnd_harness.server.url, SecretStr("not hex"), lnd_tls[1])


# phoenixd

def test_phoenixd_description_is_cut_to_its_limit(phoenixd_harness):
    invoice = phoenixd_harness.client().create_invoice(50, "x" * 300, 600)
    assert invoice.memo == "x" * 128


def test_phoenixd_fees_taken_from_a_payment_do_not_make_it_unpaid(phoenixd_harness):
    client = phoenixd_harness.client()
    invoice = client.create_invoice(5000, "top up", 600)
    phoenixd_harness.server.fee_sat = 1200  # the LSP's liquidity fee, deducted from what arrives
    phoenixd_harness.server.book.pay(invoice.payment_hash)
    status = client.lookup(invoice.payment_hash)
    assert status.settled and status.amount_sats == 5000


# LNbits

def test_lnbits_older_answers_are_understood():
    with FakeLnbits(style="old") as server:
        client = LnbitsLightning(server.url, SecretStr(server.credential), **FAST)
        invoice = client.create_invoice(77, "query", 600)
        assert client.lookup(invoice.payment_hash).settled is False
        preimage = server.book.pay(invoice.payment_hash)
        assert client.lookup(invoice.payment_hash).preimage == preimage


def test_lnbits_amount_that_is_not_whole_sats_is_refused(lnbits_harness):
    client = lnbits_harness.client()
    lnbits_harness.server.msat_extra = 500
    with pytest.raises(BackendResponseError, match="not a whole number of sats"):
        client.create_invoice(50, "query", 600)


def test_lnbits_wrong_url_is_not_taken_for_a_wrong_key(lnbits_harness):
    client = lnbits_harness.client(url=lnbits_harness.server.url + "/prefix")
    with pytest.raises(BackendResponseError, match="MI_LNBITS_URL"):
        client.create_invoice(50, "query", 600)


def test_lnbits_lookup_with_a_foreign_key_is_refused_not_trusted(lnbits_harness):
    """LNbits answers a lookup for any key (status only, no details): that is not our wallet speaking."""
    invoice = lnbits_harness.client().create_invoice(50, "query", 600)
    lnbits_harness.server.book.pay(invoice.payment_hash)
    with pytest.raises(BackendAuthError, match="MI_LNBITS_API_KEY"):
        lnbits_harness.client(credential=secrets.token_hex(16)).lookup(invoice.payment_hash)


# The factory

def _settings(monkeypatch, **env):
    for key, value in env.items():
        monkeypatch.setenv(f"MI_{key.upper()}", str(value))
    from marketintel.settings import get_settings

    get_settings.cache_clear()
    return get_settings()


def test_factory_builds_lnd_from_files(mi_home, monkeypatch, lnd_harness, lnd_tls, tmp_path):
    macaroon = tmp_path / "invoice.macaroon"
    macaroon.write_bytes(lnd_harness.server.macaroon)
    settings = _settings(monkeypatch, lightning_backend="lnd", lnd_url=lnd_harness.server.url,
                         lnd_macaroon_path=macaroon, lnd_tls_cert_path=lnd_tls[1], lightning_timeout_s=3)
    backend = make_backend(settings)
    assert isinstance(backend, LndLightning) and backend.http._client.timeout.read == 3.0
    assert backend.lookup(backend.create_invoice(50, "query", 600).payment_hash).amount_sats == 50


def test_factory_builds_lnd_from_a_hex_macaroon(mi_home, monkeypatch, lnd_harness, lnd_tls):
    settings = _settings(monkeypatch, lightning_backend="lnd", lnd_url=lnd_harness.server.url,
                         lnd_macaroon=lnd_harness.server.credential, lnd_tls_cert_path=lnd_tls[1])
    assert make_backend(settings).create_invoice(5, "query", 60).amount_sats == 5
    assert lnd_harness.server.credential not in repr(settings)


def test_factory_builds_phoenixd(mi_home, monkeypatch, phoenixd_harness):
    settings = _settings(monkeypatch, lightning_backend="phoenixd", phoenixd_url=phoenixd_harness.server.url,
                         phoenixd_password=phoenixd_harness.server.credential)
    backend = make_backend(settings)
    assert isinstance(backend, PhoenixdLightning) and backend.create_invoice(5, "query", 60).amount_sats == 5
    assert phoenixd_harness.server.credential not in repr(settings)


def test_factory_builds_lnbits(mi_home, monkeypatch, lnbits_harness):
    settings = _settings(monkeypatch, lightning_backend="lnbits", lnbits_url=lnbits_harness.server.url,
                         lnbits_api_key=lnbits_harness.server.credential)
    backend = make_backend(settings)
    assert isinstance(backend, LnbitsLightning) and backend.create_invoice(5, "query", 60).amount_sats == 5
    assert lnbits_harness.server.credential not in repr(settings)


@pytest.mark.parametrize("backend, variable", [("lnd", "MI_LND_MACAROON_PATH"), ("phoenixd", "MI_PHOENIXD_PASSWORD"),
                                               ("lnbits", "MI_LNBITS_API_KEY")])
def test_factory_names_the_missing_setting(mi_home, monkeypatch, backend, variable):
    with pytest.raises(ValueError, match=variable):
        make_backend(_settings(monkeypatch, lightning_backend=backend))


def test_factory_still_defaults_to_the_dev_node(mi_home, monkeypatch):
    assert isinstance(make_backend(_settings(monkeypatch)), DevLightning)
