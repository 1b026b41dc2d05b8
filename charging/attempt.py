"""Who pays, and one attempt to charge for one request: plain data, no HTTP.

An `Attempt` records what the charging service took for it (the free-allowance count, the ledger debit, the
L402 token spend) so that `Charging.undo` takes back exactly that. `record()` and `from_record()` carry it
to another process (an RQ job that fails is undone by whoever notices, from the record alone)."""
from __future__ import annotations

import asyncio
import functools
import hashlib
from dataclasses import dataclass, field

from charging.l402 import Credential
from charging.mpp import MppCredential
from charging.prices import PricedItem, PriceList


@dataclass
class MaxCost:
    """The most the caller lets one request be charged in all (`X-Max-Cost-Sats`, or an MCP call's
    `max_cost_sats`), and what the request has been charged so far (a batch charges several items)."""
    limit_sats: int
    charged_sats: int = 0

    def refuses(self, price_sats: int) -> bool:
        return self.charged_sats + price_sats > self.limit_sats


@dataclass(frozen=True)
class Payer:
    """A registered agent (its ledger row: `id`, `agent_id`, `tier`, ...) or an anonymous caller, with the
    L402 credential sent along, if any. `caller_id` keys allowances, challenges and deltas: the agent's id, or
    a hash of the client address (Redis never holds addresses)."""

    caller_id: str
    agent: dict | None = None
    l402: Credential | None = None
    mpp: MppCredential | None = None  # an MPP `Payment` credential (charging/mpp.py), which pays as a token does
    max_cost: MaxCost | None = None  # the caller's ceiling on this request's charges
    prepaid: bool = False  # within a request paid whole beforehand (a batch paid per request): charged nothing

    @classmethod
    def of(cls, agent: dict | None, client_ip: str, l402: Credential | None = None,
           mpp: MppCredential | None = None, max_cost: MaxCost | None = None) -> Payer:
        if agent is not None:
            return cls(f"a:{agent['agent_id']}", agent, l402, mpp, max_cost)
        return cls(address_caller(client_ip), None, l402, mpp, max_cost)

    @property
    def pays_per_request(self) -> bool:
        """Whether it sent a per-request payment (an L402 token or an MPP credential)."""
        return self.l402 is not None or self.mpp is not None

    @property
    def agent_pk(self) -> int | None:
        return self.agent["id"] if self.agent is not None else None


@functools.lru_cache(maxsize=4096)  # the same few addresses call again and again: hash each once
def address_caller(client_ip: str) -> str:
    return "ip:" + hashlib.sha256(client_ip.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class Charge:
    """How an attempt was paid."""

    charged_sats: int
    # "free_allowance", "free_with_key", "l402", "mpp", or the agent's pool that paid (warehouse.ledger POOL_ORDER)
    paid_with: str
    free_queries_left: int = 0
    balance_sats: int | None = None  # after this charge, when a pool of the agent's paid
    pool_left_sats: int | None = None  # what is left in the pool that paid

    @property
    def free(self) -> bool:
        return self.charged_sats == 0


@dataclass
class Attempt:
    payer: Payer
    item: PricedItem
    request_id: str  # the ledger reference: one debit at most per request id, whatever the retries
    # What was taken, written by the charging service only.
    claim_key: str | None = None  # the free-allowance counter this attempt was counted on ...
    uses_today: int | None = None  # ... and the count Redis returned (set: the count was received)
    debit: asyncio.Future | None = field(default=None, repr=False)  # the ledger debit, committing or done
    debited: bool = False
    spend: asyncio.Future | None = field(default=None, repr=False)  # the L402 token spend, committing or done
    token_spent: str | None = None  # identifier hash of the token this attempt spent
    charge: Charge | None = None

    def record(self) -> dict:
        """What another process needs to undo this attempt. Only finished steps are recorded: call it after
        `charge` returned."""
        agent = self.payer.agent
        return {"caller_id": self.payer.caller_id, "item": self.item.key,
                "agent": {"id": agent["id"], "agent_id": agent["agent_id"]} if agent is not None else None,
                "request_id": self.request_id, "claim_key": self.claim_key if self.uses_today else None,
                "debited": self.debited, "token_spent": self.token_spent}

    @classmethod
    def from_record(cls, record: dict, prices: PriceList) -> Attempt:
        payer = Payer(record["caller_id"], record["agent"])
        claim_key = record["claim_key"]
        return cls(payer, prices[record["item"]], record["request_id"], claim_key=claim_key,
                   uses_today=1 if claim_key else None, debited=record["debited"],
                   token_spent=record["token_spent"])
