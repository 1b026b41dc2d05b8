"""`marketintel predictions verify`: recompute a prediction chain and check its signed heads.

Locally (no --url) it reads the SQL store of the settings and the public half of the key under MI_HOME. With
--url it does what any third party can: fetch the public key from /.well-known/marketintel-signing-key.json and
page through GET /api/v1/predictions/chain, then apply intel/hash_chain.py's rules to what it was sent. A key
fetched from the server it vouches for proves only that the server did not change its own history since it
signed it; pin the key id you recorded earlier with --key-id to know it is the same key.
"""
from __future__ import annotations

from collections.abc import Iterator

import httpx

from intel.hash_chain import VerifyResult, verify
from warehouse.ledger.records import EXPORT_PAGE_MAX, Records, prediction_chain

WELL_KNOWN_KEY = "/.well-known/marketintel-signing-key.json"
CHAIN_EXPORT = "/api/v1/predictions/chain"


class VerifyError(RuntimeError):
    """Verification could not run (no key, the server refused or answered nonsense)."""


def verify_local(settings, origin: str) -> tuple[VerifyResult, str]:
    """(result, key id) for the chain of `origin` in the settings' SQL store."""
    from marketintel.signing import load
    from warehouse.ledger import make_engine

    try:
        key = load(settings.home)
    except FileNotFoundError:
        raise VerifyError(f"no signing key under {settings.home}: the service makes it at first start") from None
    engine = make_engine(settings.sqlalchemy_url)
    try:
        records, chain = Records(engine), prediction_chain(origin)
        return verify(chain, _local_pages(records, chain), records.heads(chain), key.public_bytes), key.key_id
    finally:
        engine.dispose()


def _local_pages(records: Records, chain: str) -> Iterator[dict]:
    after = 0
    while page := records.listing(chain, after, EXPORT_PAGE_MAX):
        yield from page
        after = page[-1]["seq"]


def verify_remote(url: str, origin: str, api_key: str | None = None, key_id: str | None = None,
                  client: httpx.Client | None = None) -> tuple[VerifyResult, str]:
    """(result, key id) for the chain of `origin` served at `url`."""
    own = client is None
    client = client or httpx.Client(timeout=30)
    try:
        described = _get(client, url.rstrip("/") + WELL_KNOWN_KEY, {})
        if key_id is not None and described.get("key_id") != key_id:
            raise VerifyError(f"the server's key is {described.get('key_id')}, not the pinned {key_id}")
        public_key = bytes.fromhex(described["public_key_hex"])
        records, heads, chain = _fetch_chain(client, url.rstrip("/") + CHAIN_EXPORT, origin, api_key)
        return verify(chain, records, heads, public_key), described["key_id"]
    finally:
        if own:
            client.close()


def _fetch_chain(client: httpx.Client, export: str, origin: str, api_key: str | None):
    headers = {"X-API-Key": api_key} if api_key else {}
    records, heads, after, chain = [], [], 0, prediction_chain(origin)
    while after is not None:
        page = _get(client, export, headers, {"origin": origin, "after": after, "limit": EXPORT_PAGE_MAX})
        if page.get("chain") != chain:
            raise VerifyError(f"asked for chain {chain}, the server sent {page.get('chain')}")
        records += page["records"]
        heads += page["heads"]
        following = page.get("next_after")
        if following is not None and following <= after:
            raise VerifyError(f"the export's next_after {following} does not move past {after}")
        after = following
    return records, heads, chain


def _get(client: httpx.Client, url: str, headers: dict, params: dict | None = None) -> dict:
    try:
        response = client.get(url, headers=headers, params=params)
    except httpx.HTTPError as exc:
        raise VerifyError(f"{url}: {exc}") from None
    if response.status_code != 200:
        raise VerifyError(f"{url}: HTTP {response.status_code} {response.text[:200]}")
    return response.json()
