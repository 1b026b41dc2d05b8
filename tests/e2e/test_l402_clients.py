"""A client nobody here wrote pays the service: l402-requests 0.9 (PyPI: an auto-paying httpx client) against real
gunicorn, its wallet the dev Lightning node behind a WalletBase adapter (the one method its wallets implement).

It pays module queries per request with L402 and, asking for it (`Accept-Payment: lightning/charge`), with MPP's
Lightning charge (its draft-00 profile), reading the `Payment-Receipt` back. Each 402's header is read by its own
parser. It resends the token it cached for the path on the next request: that token is spent, so the service
answers 402 with a fresh challenge, the client pays again and is served, and the refused attempt costs nothing. A
day-trade pass it buys once serves every request of its window from the cache. The ledger shows one spent token and
one settled invoice per paid query, and a pass token never spent."""
from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from l402_requests import BudgetController, L402Client, WalletBase
from sqlalchemy import select

from marketintel.lightning.dev import DevLightning
from marketintel.settings import Settings
from tests.e2e.paid_load import MODULE, migrate, publish_module, service_env, start_gunicorn, stop
from warehouse.ledger import make_engine
from warehouse.ledger.tables import invoices, l402_tokens

pytestmark = pytest.mark.e2e
# the client's own guard on what it pays (on by default, 1,000 sats a request): the day-trade pass costs more
BUDGET = BudgetController(max_sats_per_request=20_000, max_sats_per_hour=50_000, max_sats_per_day=50_000)


class DevNodeWallet(WalletBase):
    """l402-requests' wallet interface over the dev node: pays a BOLT11 invoice, returns the preimage (hex)."""
    supports_preimage = True

    def __init__(self, home: Path):
        self.node = DevLightning(home)
        self.paid: list[str] = []

    async def pay_invoice(self, bolt11: str) -> str:
        preimage = await asyncio.to_thread(self.node.pay, bolt11)
        self.paid.append(bolt11)
        return preimage


@pytest.fixture(scope="module")
def served(tmp_path_factory, redis_server):
    """gunicorn on a fresh home, the module and bitcoin (the pass's BTC/USD) published; (base URL, home)."""
    home = tmp_path_factory.mktemp("l402-clients")
    env = service_env(home, redis_server.url, None)
    migrate(env)
    for name in (MODULE, "bitcoin", "market_regime"):
        publish_module(redis_server.url, name)
    process, base = start_gunicorn(env, workers=1, log=home / "gunicorn.log")
    try:
        yield base, home
    finally:
        stop(process)


def ledger_rows(home: Path) -> tuple[list[dict], dict[str, str]]:
    """Every L402 token (scope, spent_by) and the status of each invoice, by BOLT11."""
    engine = make_engine(Settings(home=home).sqlalchemy_url)
    try:
        with engine.connect() as conn:
            tokens = [dict(r) for r in conn.execute(select(l402_tokens.c.scope, l402_tokens.c.spent_by,
                                                           l402_tokens.c.payment_hash)).mappings()]
            statuses = dict(conn.execute(select(invoices.c.bolt11, invoices.c.status)).all())
    finally:
        engine.dispose()
    return tokens, statuses


def test_l402_requests_pays_each_query_and_pays_again_when_its_cached_token_is_spent(served):
    base, home = served
    wallet = DevNodeWallet(home)
    client = L402Client(wallet=wallet, budget=BUDGET, timeout=30)
    url = f"{base}/api/v1/intelligence/{MODULE}"
    free = client.get(url)  # the address's free query of the day: nothing to pay
    assert free.status_code == 200 and free.json()["_meta"]["paid_with"] == "free_allowance" and wallet.paid == []
    answers = [client.get(url) for _ in range(2)]  # the second sends the first's cached token: spent, paid again
    assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
    assert [a.json()["_meta"]["paid_with"] for a in answers] == ["l402", "l402"]
    assert len(wallet.paid) == 2 and len(client.spending_log) == 2
    tokens, statuses = ledger_rows(home)
    module_tokens = [t for t in tokens if t["scope"] == f"module:{MODULE}"]
    assert sorted(t["spent_by"] for t in module_tokens) == sorted(a.headers["X-Request-ID"] for a in answers)
    assert [statuses[bolt11] for bolt11 in wallet.paid] == ["settled", "settled"]

    with httpx.Client(timeout=30) as plain:  # the spent token sent again: 402, a fresh challenge, nothing charged
        cached = client._cache.get(httpx.URL(url).host, httpx.URL(url).path).authorization_header
        stale = plain.get(url, headers={"Authorization": cached})
    assert stale.status_code == 402 and stale.json()["error"]["code"] == "l402_token_spent"
    assert stale.json()["_meta"]["charged_sats"] == 0 and 'version="0"' in stale.headers["WWW-Authenticate"]
    spent = [t for t in ledger_rows(home)[0] if t["spent_by"]]
    assert spent == [t for t in tokens if t["spent_by"]]  # a new challenge was issued; nothing more was spent


def test_l402_requests_buys_a_day_trade_pass_once_for_its_window(served):
    base, home = served
    wallet = DevNodeWallet(home)
    client = L402Client(wallet=wallet, budget=BUDGET, timeout=30)
    answers = [client.get(f"{base}/api/v1/trading/day-trade-ideas") for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200], answers[0].text
    assert {a.json()["access"]["via"] for a in answers} == {"l402_pass"}
    assert len(wallet.paid) == 1  # bought once; the cached pass serves the rest
    tokens, statuses = ledger_rows(home)
    [pass_token] = [t for t in tokens if t["scope"] == "pass:daytrade"]
    assert pass_token["spent_by"] is None and statuses[wallet.paid[0]] == "settled"


def test_l402_requests_pays_over_mpp_when_it_asks_for_it_and_reads_the_receipt(served):
    base, home = served
    wallet = DevNodeWallet(home)
    client = L402Client(wallet=wallet, budget=BUDGET, timeout=30, headers={"Accept-Payment": "lightning/charge"})
    url = f"{base}/api/v1/intelligence/market_regime"
    assert client.get(url).json()["_meta"]["paid_with"] == "free_allowance"  # the address's free query of it
    paid = client.get(url)
    assert paid.status_code == 200 and paid.json()["_meta"]["paid_with"] == "mpp", paid.text
    receipt = paid.payment_receipt
    assert receipt is not None and receipt.status == "success" and receipt.method == "lightning"
    tokens, statuses = ledger_rows(home)
    [token] = [t for t in tokens if t["spent_by"] == paid.headers["X-Request-ID"]]
    assert receipt.reference == token["payment_hash"] and statuses[wallet.paid[0]] == "settled"
    assert len(wallet.paid) == 1


def test_l402_requests_pays_a_batch_whole_with_one_token(served):
    base, home = served
    wallet = DevNodeWallet(home)
    client = L402Client(wallet=wallet, budget=BUDGET, timeout=30)
    body = {"modules": [MODULE, "bitcoin", "market_regime"]}
    paid = client.post(f"{base}/api/v1/intelligence/batch", json=body)
    assert paid.status_code == 200, paid.text
    assert [r["status"] for r in paid.json()["results"]] == [200, 200, 200]
    meta = paid.json()["_meta"]
    assert meta["paid_with"] == "l402" and meta["charged_sats"] == 50 + 50 + 250 and len(wallet.paid) == 1
    tokens, statuses = ledger_rows(home)
    [token] = [t for t in tokens if t["spent_by"] == paid.headers["X-Request-ID"]]
    assert token["scope"].startswith("batch:") and statuses[wallet.paid[0]] == "settled"
    with httpx.Client(timeout=30) as plain:  # its token pays for that batch alone
        other = plain.post(f"{base}/api/v1/intelligence/batch", json={"modules": [MODULE]},
                           headers={"Authorization": client._cache.get(httpx.URL(base).host,
                                                                       "/api/v1/intelligence").authorization_header})
    assert other.status_code == 402 and other.json()["error"]["code"] == "l402_wrong_resource"
