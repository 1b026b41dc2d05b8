"""Paying one request with an L402 token, or with an MPP `Payment` credential for the same invoice: verify the
credential for the item, spend the token once (whichever protocol presents its proof), and give it back if the
request then fails."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from charging import mpp
from charging.attempt import Attempt
from charging.l402 import Credential, L402Refused, check_macaroon
from marketintel import prometheus
from marketintel.lightning.base import LightningBackend
from marketintel.lightning.proof import preimage_matches
from warehouse.ledger import Tokens


class TokenSpender:
    def __init__(self, tokens: Tokens, lightning: LightningBackend, now: Callable[[], float] = time.time):
        self.tokens, self.lightning = tokens, lightning
        self.now = now  # wall time: token expiries are unix seconds, like invoice expiries

    async def redeem(self, attempt: Attempt) -> str:
        """Verify the payer's credential (MPP when it sent one, else L402) for the attempt's item and spend it; the
        protocol that paid ("mpp" or "l402"). L402Refused (nothing spent) when it does not pay for it."""
        payer = attempt.payer
        if payer.mpp is not None:
            row = await self.verify_mpp(payer.mpp, attempt.item.key, self.now())
            await self._spend(attempt, row["identifier_hash"], "mpp_credential_spent",
                              "This payment was already used; each pays for one request.")
            payer.mpp.spent = True
            return "mpp"
        credential: Credential = payer.l402
        await self.verify(credential, attempt.item.key, self.now())
        await self._spend(attempt, credential.identifier_hash, "l402_token_spent",
                          "This token was already used; each pays for one request.")
        return "l402"

    async def _spend(self, attempt: Attempt, token: str, code: str, message: str) -> None:
        # The spend commits in a thread; if the request is cancelled meanwhile, `release` waits for the commit
        # (the future is on the attempt) and un-spends it rather than racing it.
        attempt.spend = asyncio.ensure_future(asyncio.to_thread(self._spent, token, attempt.request_id))
        spent = await asyncio.shield(attempt.spend)
        attempt.spend = None
        if spent is None:
            raise L402Refused(code, message)
        attempt.token_spent = spent
        prometheus.L402_SPENT.inc()

    def _spent(self, token: str, request_id: str) -> str | None:
        """The token, spent by the request now; None when it was spent before."""
        return token if self.tokens.spend(token, request_id) else None

    async def verify_mpp(self, credential: mpp.MppCredential, capability: str, now: float) -> dict:
        """The token row when the credential echoes, unchanged, a challenge this server issued for `capability`,
        still usable at `now`, with the preimage of its invoice; L402Refused otherwise. Spends nothing."""
        row = await asyncio.to_thread(self.tokens.with_invoice, credential.challenge_id)
        if row is None:
            raise L402Refused("mpp_unknown_challenge", "This server did not issue that challenge.")
        issued = mpp.challenge_params(row["identifier_hash"], row["bolt11"], row["payment_hash"], row["price_sats"],
                                      row["invoice_expires_at"].timestamp())
        if credential.challenge != issued:
            raise L402Refused("mpp_challenge_mismatch", "The credential does not echo the challenge as issued.")
        if row["scope"] != capability:
            raise L402Refused("mpp_wrong_resource", f"This payment does not pay for '{capability}'.")
        if now >= row["expires_at"].timestamp():
            raise L402Refused("mpp_expired", "This challenge has expired.")
        if not preimage_matches(row["payment_hash"], credential.preimage.hex()):
            raise L402Refused("mpp_invalid_preimage", "The preimage does not match the invoice's payment hash.")
        return row

    async def verify(self, credential: Credential, capability: str, now: float) -> dict:
        """The token's row when the credential is paid and grants `capability` at `now` (unix seconds: wall time
        for per-request tokens, the market clock for passes); L402Refused otherwise. Spends nothing."""
        row = await asyncio.to_thread(self.tokens.get, credential.identifier_hash)
        if row is None:
            raise L402Refused("l402_unknown_token", "This server did not mint that macaroon.")
        check_macaroon(credential, bytes.fromhex(row["root_key"]), capability, now)
        # The preimage is the proof of payment: sha256(preimage) == the hash the identifier commits to
        # (hmac.compare_digest in preimage_matches); so no node lookup on the success path.
        if not preimage_matches(credential.identifier.payment_hash.hex(), credential.preimage.hex()):
            if not await self._paid(row["payment_hash"]):
                raise L402Refused("l402_unpaid", "The invoice of this token is not paid yet.")
            raise L402Refused("l402_invalid_preimage", "The preimage does not match the token's payment hash.")
        return row

    async def release(self, attempt: Attempt) -> None:
        """Un-spend the token of an attempt that failed after spending it: nothing is charged for a failure.
        Only the request that spent a token can un-spend it."""
        if attempt.spend is not None:
            spend, attempt.spend = attempt.spend, None
            await asyncio.wait([spend])  # a spend still committing in its thread is undone, not raced
            if spend.exception() is None and spend.result():
                attempt.token_spent = spend.result()
        if attempt.token_spent:
            await asyncio.to_thread(self.tokens.unspend, attempt.token_spent, attempt.request_id)
            attempt.token_spent = None
            if attempt.payer.mpp is not None:
                attempt.payer.mpp.spent = False  # no receipt for a request that is not delivered
            prometheus.REFUNDS.labels("l402").inc()

    async def _paid(self, payment_hash: str) -> bool:
        try:
            status = await asyncio.to_thread(self.lightning.lookup, payment_hash)
        except Exception:  # noqa: BLE001  (the node's view only refines the error message)
            return True
        return bool(status and status.settled)
