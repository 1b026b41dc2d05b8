"""The LNbits client against a REAL LNbits (its FakeWallet funding source), when one is installed.

Set-up (kept out of this project's environment, so CI never depends on it):
    python3 -m venv /tmp/lnbits-venv && /tmp/lnbits-venv/bin/pip install lnbits 'bitstring<5'
(bolt11 breaks with bitstring 5, which lnbits 1.6.2 pulls in.) MI_TEST_LNBITS_BIN points elsewhere.

With the admin UI on (needed for a super user), a fresh LNbits redirects everything until its first-install
route gives the super user a password; that answers a token. Settling a FakeWallet invoice then goes
through LNbits' own API: the super user credits a second wallet (`PUT /users/api/v1/balance`), and that
wallet pays our invoice with its admin key (an internal payment, which releases the invoice's preimage).
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import bolt11
import httpx
import pytest
from pydantic import SecretStr

from marketintel.lightning import BackendAuthError, preimage_matches
from marketintel.lightning.lnbits import LnbitsLightning

LNBITS_BIN = Path(os.environ.get("MI_TEST_LNBITS_BIN", "/tmp/lnbits-venv/bin/lnbits"))
pytestmark = pytest.mark.skipif(
    not LNBITS_BIN.exists(),
    reason=f"no real LNbits at {LNBITS_BIN}: install it in its own venv (see this file's docstring) "
           "or set MI_TEST_LNBITS_BIN")
START_TIMEOUT_S = 90


def _free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as sock:
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def lnbits(tmp_path_factory) -> dict:
    """A running LNbits: {"url": ..., "token": the super user's bearer token}."""
    folder = tmp_path_factory.mktemp("lnbits")
    python = LNBITS_BIN.parent / "python"
    # LNbits serves its static files from "lnbits/static" relative to the working folder.
    where = "import lnbits, pathlib; print(pathlib.Path(lnbits.__file__).parent.parent)"
    found = subprocess.run([str(python), "-c", where], capture_output=True, text=True, timeout=120)
    if found.returncode != 0:
        pytest.skip(f"the LNbits at {LNBITS_BIN} does not import: {found.stderr.strip()[-300:]}")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MI_")}
    env.update(LNBITS_BACKEND_WALLET_CLASS="FakeWallet", LNBITS_DATA_FOLDER=str(folder / "data"),
               LNBITS_ADMIN_UI="true", LNBITS_EXTENSIONS_DEFAULT_INSTALL="", AUTH_HTTPS_ONLY="false")
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


def _pay_from_a_funded_wallet(url: str, token: str, bolt11_invoice: str) -> None:
    payer = _wallet(url, "payer")
    credit = httpx.put(f"{url}/users/api/v1/balance", json={"id": payer["id"], "amount": 100_000}, timeout=10,
                       headers={"Authorization": f"Bearer {token}"})
    credit.raise_for_status()
    paid = httpx.post(f"{url}/api/v1/payments", json={"out": True, "bolt11": bolt11_invoice}, timeout=30,
                      headers={"X-Api-Key": payer["adminkey"]})
    assert paid.status_code == 201, paid.text


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
