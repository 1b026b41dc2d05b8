"""The LNbits client against a REAL LNbits (its FakeWallet funding source).

Set-up: `make test` installs it first, in a virtualenv of its own (its pins clash with this project's):
    make .venv-lnbits/.installed
(lnbits 1.6.2 and bitstring<5, see lnbits-requirements.txt beside this file: bolt11 breaks with bitstring 5,
which lnbits 1.6.2 pulls in.) MI_TEST_LNBITS_BIN points at another `lnbits` executable. Without one these
tests skip saying why; under CI (`CI=true`) they fail instead, so a CI run cannot pass without having run them.

With the admin UI on (needed for a super user), a fresh LNbits redirects everything until its first-install
route gives the super user a password; that answers a token. Settling a FakeWallet invoice then goes
through LNbits' own API: the super user credits a second wallet (`PUT /users/api/v1/balance`), and that
wallet pays our invoice with its admin key (an internal payment, which releases the invoice's preimage).
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import bolt11
import httpx
import pytest
from pydantic import SecretStr

from marketintel.lightning import BackendAuthError, BackendResponseError, preimage_matches
from marketintel.lightning.lnbits import LnbitsLightning
from marketintel.redis_server import free_port
from tests.absent import absent

ROOT = Path(__file__).resolve().parents[3]
LNBITS_BIN = Path(os.environ.get("MI_TEST_LNBITS_BIN", ROOT / ".venv-lnbits" / "bin" / "lnbits"))
INSTALL_HINT = "`make .venv-lnbits/.installed` installs it (`make test` does), or set MI_TEST_LNBITS_BIN"
START_TIMEOUT_S = 90


def _unavailable(why: str) -> None:
    """Skip saying why; under CI fail instead: a skip there would hide that the real LNbits never ran."""
    absent(f"{why}: {INSTALL_HINT}")


@pytest.fixture(scope="module")
def lnbits(tmp_path_factory) -> dict:
    """A running LNbits: {"url": ..., "token": the super user's bearer token}."""
    python = LNBITS_BIN.parent / "python"
    if not (LNBITS_BIN.exists() and python.exists()):
        _unavailable(f"no real LNbits at {LNBITS_BIN}")
    folder = tmp_path_factory.mktemp("lnbits")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MI_")}
    env.update(LNBITS_BACKEND_WALLET_CLASS="FakeWallet", LNBITS_DATA_FOLDER=str(folder / "data"),
               LNBITS_ADMIN_UI="true", LNBITS_EXTENSIONS_DEFAULT_INSTALL="", AUTH_HTTPS_ONLY="false")
    # LNbits serves its static files from "lnbits/static" relative to the working folder. Importing it
    # already writes an auth key into its data folder (./data by default): keep that in the temporary one.
    where = "import lnbits, pathlib; print(pathlib.Path(lnbits.__file__).parent.parent)"
    found = subprocess.run([str(python), "-c", where], capture_output=True, text=True, timeout=120, env=env,
                           cwd=folder)
    if found.returncode != 0:
        _unavailable(f"the LNbits at {LNBITS_BIN} does not import: {found.stderr.strip()[-300:]}")
    port = free_port()
    log = (folder / "lnbits.log").open("wb")
    proc = subprocess.Popen([str(LNBITS_BIN), "--host", "127.0.0.1", "--port", str(port)], cwd=found.stdout.strip(),
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"LNbits exited with {proc.returncode}: {(folder / 'lnbits.log').read_text()[-1500:]}")
            try:
                httpx.get(f"{url}/api/v1/health", timeout=2)
                break  # any answer: it is up (before first install, every route redirects there)
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"LNbits did not start in {START_TIMEOUT_S}s")
            time.sleep(0.5)
        token = httpx.put(f"{url}/api/v1/auth/first_install", timeout=10, json={
            "username": "operator", "password": "operator-pass-1", "password_repeat": "operator-pass-1"})
        token.raise_for_status()
        yield {"url": url, "token": token.json()["access_token"]}
    finally:
        _stop_group(proc)
        log.close()


def _stop_group(proc: subprocess.Popen) -> None:
    """`lnbits` runs the server in a child process that outlives a terminated parent: stop the whole
    process group, which is this fixture's own (start_new_session), never anything else."""
    for sig, grace_s in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            proc.poll()
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)


def _wallet(url: str, name: str) -> dict:
    response = httpx.post(f"{url}/api/v1/account", json={"name": name}, timeout=10)
    response.raise_for_status()
    return response.json()


def _pay_from_a_funded_wallet(url: str, token: str, bolt11_invoice: str) -> dict:
    """Pays the invoice from a new wallet the super user funds; answers that wallet."""
    payer = _wallet(url, "payer")
    credit = httpx.put(f"{url}/users/api/v1/balance", json={"id": payer["id"], "amount": 100_000}, timeout=10,
                       headers={"Authorization": f"Bearer {token}"})
    credit.raise_for_status()
    paid = httpx.post(f"{url}/api/v1/payments", json={"out": True, "bolt11": bolt11_invoice}, timeout=30,
                      headers={"X-Api-Key": payer["adminkey"]})
    assert paid.status_code == 201, paid.text
    return payer


def test_real_lnbits_issues_reports_and_settles(lnbits):
    lnbits_url = lnbits["url"]
    wallet = _wallet(lnbits_url, "marketintel")
    client = LnbitsLightning(lnbits_url, SecretStr(wallet["inkey"]), timeout_s=30)
    invoice = client.create_invoice(50, "marketintel: query (50 sats)", 600)
    decoded = bolt11.decode(invoice.bolt11)
    assert decoded.amount_msat == 50_000 and decoded.payment_hash == invoice.payment_hash
    assert invoice.expires_at == invoice.created_at + 600

    status = client.lookup(invoice.payment_hash)
    assert (status.settled, status.preimage, status.amount_sats) == (False, None, 50)
    assert client.lookup("00" * 32) is None

    _pay_from_a_funded_wallet(lnbits_url, lnbits["token"], invoice.bolt11)
    status = client.lookup(invoice.payment_hash)
    assert status.settled and preimage_matches(invoice.payment_hash, status.preimage)


def test_real_lnbits_refuses_a_wrong_key_clearly(lnbits):
    lnbits_url = lnbits["url"]
    wallet = _wallet(lnbits_url, "marketintel-2")
    good = LnbitsLightning(lnbits_url, SecretStr(wallet["inkey"]), timeout_s=30)
    known = good.create_invoice(10, "known", 600).payment_hash
    wrong = "0" * 32
    bad = LnbitsLightning(lnbits_url, SecretStr(wrong), timeout_s=30)
    for call in (lambda: bad.create_invoice(10, "query", 600), lambda: bad.lookup(known)):
        with pytest.raises(BackendAuthError) as caught:
            call()
        assert wrong not in str(caught.value)


def test_real_lnbits_lookup_agrees_with_the_invoice_issued(lnbits):
    """What the charging code keeps from a lookup (expiry, amount) is what the invoice carries, and a memo
    beyond ASCII reaches the payer's wallet unchanged."""
    wallet = _wallet(lnbits["url"], "marketintel-3")
    client = LnbitsLightning(lnbits["url"], SecretStr(wallet["inkey"]), timeout_s=30)
    memo = "marketintel: régime query, 1 sat"
    invoice = client.create_invoice(1, memo, 120)
    assert bolt11.decode(invoice.bolt11).description == memo
    status = client.lookup(invoice.payment_hash)
    assert (status.expires_at, status.amount_sats, status.settled) == (invoice.expires_at, 1, False)


def test_real_lnbits_never_takes_a_payment_out_for_one_in(lnbits):
    """Looked up with the PAYER's key, our invoice's hash is the payer's outgoing payment: the client must
    refuse it, never report it as an invoice of ours that was settled (that would credit a payer's spend)."""
    wallet = _wallet(lnbits["url"], "marketintel-4")
    client = LnbitsLightning(lnbits["url"], SecretStr(wallet["inkey"]), timeout_s=30)
    invoice = client.create_invoice(20, "query", 600)
    payer = _pay_from_a_funded_wallet(lnbits["url"], lnbits["token"], invoice.bolt11)
    as_payer = LnbitsLightning(lnbits["url"], SecretStr(payer["inkey"]), timeout_s=30)
    with pytest.raises(BackendResponseError, match="outgoing"):
        as_payer.lookup(invoice.payment_hash)


def test_real_lnbits_other_wallets_invoice_is_not_ours(lnbits):
    """A valid key of ANOTHER wallet never sees this wallet's invoice as settled: an agent presenting the
    hash of an invoice some other wallet issued (and got paid) gains nothing."""
    issuer = _wallet(lnbits["url"], "somebody-else")
    theirs = LnbitsLightning(lnbits["url"], SecretStr(issuer["inkey"]), timeout_s=30).create_invoice(30, "x", 600)
    _pay_from_a_funded_wallet(lnbits["url"], lnbits["token"], theirs.bolt11)
    ours = _wallet(lnbits["url"], "marketintel-5")
    client = LnbitsLightning(lnbits["url"], SecretStr(ours["inkey"]), timeout_s=30)
    # LNbits 1.6.2 answers 404 "Payment does not exist." to a valid key of another wallet: not ours.
    assert client.lookup(theirs.payment_hash) is None
