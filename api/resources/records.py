"""The prediction record as its verifiers read it: the service's public signing key and the rules of the chain at
a well-known URL, and the chain export (every record with its hashes, and the signed daily heads).

The export needs a credential, as interface.md says of the prediction routes, but any valid key will do (registering
is free and asks only for a name) and it is never charged: a record only paying customers could check would prove
little. The well-known key document needs none."""
from __future__ import annotations

import asyncio
from typing import Literal

import orjson
from pydantic import BaseModel, Field

from api import response_docs_routes as r
from api.middleware import require_agent
from api.spec import Documented, api_spec
from intel.hash_chain import (
    CANONICAL_RULE,
    GENESIS,
    HASH_RULE,
    HEAD_MESSAGE,
    KEY_ID_RULE,
    SIGNATURE_RULE,
    VERIFY_PROCEDURE,
)
from intel.predictions import accuracy, forecaster
from intel.predictions.published import KINDS
from marketintel.signing import ServiceKey
from warehouse.cache import AsyncServingCache
from warehouse.ledger.records import EXPORT_PAGE_MAX, ORIGINS, Records, prediction_chain

SIGNING_KEY_PATH = "/.well-known/marketintel-signing-key.json"
CHAIN_EXPORT_PATH = "/api/v1/predictions/chain"
SEQ_MAX = 2**63 - 1  # the largest BigInteger (chain_records.seq)
PROCEDURE_TEXT = "\n".join(f"{n}. {step}" for n, step in enumerate(VERIFY_PROCEDURE, 1))


class ChainQuery(BaseModel):
    origin: Literal[ORIGINS] = Field("live", description="`live` predictions, or the `backtest` (never mixed)")
    # le: seq is a signed 64-bit column; a larger `after` made SQLite raise OverflowError, a 500 (found by the fuzz)
    after: int = Field(0, ge=0, le=SEQ_MAX, description="Records with seq above this (0: from the first)")
    limit: int = Field(EXPORT_PAGE_MAX, ge=1, le=EXPORT_PAGE_MAX, description="Records per page")


class SigningKeyResource:
    public = True  # a well-known manifest (interface.md: no credential needed)

    def __init__(self, key: ServiceKey, serving: AsyncServingCache):
        self.serving = serving
        self.document = {
            **key.public_description(),
            "purpose": "Signs each market day's head of the prediction record's hash chains.",
            "chains": {origin: prediction_chain(origin) for origin in ORIGINS},
            "export": f"{CHAIN_EXPORT_PATH}?origin=live|backtest&after=<seq>&limit=<1..{EXPORT_PAGE_MAX}> "
                      "(any API key; never charged)",
            "canonicalization": CANONICAL_RULE, "hashing": HASH_RULE, "genesis_prev_hash": GENESIS,
            "signed_head_message": HEAD_MESSAGE, "signature": SIGNATURE_RULE, "key_id_rule": KEY_ID_RULE,
            "how_to_verify": list(VERIFY_PROCEDURE),
            "forecasting": forecaster.METHOD, "scoring": accuracy.METHOD,
            "how_to_score": "marketintel predictions score --url <server> --api-key <key> --origin live|backtest",
        }

    # In the OpenAPI document (api/spec.py gives the escaped dots of its path back), with its one status.
    @api_spec.validate(tags=["predictions"], resp=Documented(HTTP_200=r.SigningKey))
    async def on_get(self, req, resp):
        """The service's Ed25519 public key (raw, hex and base64), its key id, and the rules of the prediction
        record: canonical serialization, hashing, the signed head message, and how to verify step by step; how
        forecasts are made and scored; and each statement kind, published in the live record or withheld (kept in
        the back-test), with the figures of the out-of-sample record its gate judged and why (`kinds`, as of the
        last day the pipeline issued statements; null before its first run)."""
        body, _ = await self.serving.get_product(KINDS)
        kinds = orjson.loads(body) if body is not None else None
        resp.media = {**self.document, "kinds": kinds and {k: kinds[k] for k in ("as_of", "published", "withheld",
                                                                                  "kinds")}}


class ChainExportResource:
    def __init__(self, records: Records):
        self.records = records

    @api_spec.validate(query=ChainQuery, tags=["predictions"],
                       resp=Documented("HTTP_401", "HTTP_422", HTTP_200=r.ChainExport))
    async def on_get(self, req, resp):
        require_agent(req)
        query = req.context.query
        chain = prediction_chain(query.origin)
        records = await asyncio.to_thread(self.records.listing, chain, query.after, query.limit)
        through = records[-1]["seq"] if records else query.after
        heads = await asyncio.to_thread(self.records.heads, chain, query.after, through) if records else []
        resp.media = {
            "chain": chain, "origin": query.origin, "after": query.after, "records": records, "heads": heads,
            "next_after": through if len(records) == query.limit else None,
            "verify": {"signing_key": SIGNING_KEY_PATH, "hashing": HASH_RULE, "signed_head_message": HEAD_MESSAGE},
        }


ChainExportResource.on_get.__doc__ = f"""The prediction record's hash chain, for verification: records with seq above
`after` in order (seq, kind, record_id, body: the canonical JSON text hashed, prev_hash, hash, recorded_on: the
market day it was recorded) and the signed daily heads naming a seq in this page (day, seq, hash, signature,
key_id). `next_after` is the `after` of the next page, null on the last. Live and back-test predictions are
separate chains. Needs any API key (registering is free); never charged. The public key and rules:
{SIGNING_KEY_PATH}.

How to verify:
{PROCEDURE_TEXT}"""
