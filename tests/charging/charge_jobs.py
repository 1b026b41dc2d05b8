"""RQ job functions for the charging tests: plain importable functions, as production jobs are (jobs/)."""
from __future__ import annotations

import asyncio

from rq import get_current_job

from charging.attempt import Attempt, Payer
from charging.service import Charging
from marketintel.settings import get_settings
from warehouse.ledger import Agents, make_engine


def _attempt(charging: Charging, agent_pk: int, item_key: str, request_id: str) -> Attempt:
    agent = Agents(make_engine(get_settings().sqlalchemy_url)).get(agent_pk)
    return Attempt(Payer.of(agent, "unused"), charging.prices[item_key], request_id)


def charge(agent_pk: int, item_key: str, request_id: str) -> dict:
    """Charge one item for an agent, as a synthesis job will: no HTTP, the API's own charging service."""
    charging = Charging.from_settings(get_settings())
    attempt = _attempt(charging, agent_pk, item_key, request_id)
    paid = asyncio.run(charging.charge(attempt))
    return {"charged_sats": paid.charged_sats, "paid_with": paid.paid_with, "balance_sats": paid.balance_sats}


def charge_then_crash(agent_pk: int, item_key: str, request_id: str) -> None:
    """Charge, keep the attempt's record on the job (what a failure handler needs), then fail before any
    answer is delivered."""
    charging = Charging.from_settings(get_settings())
    attempt = _attempt(charging, agent_pk, item_key, request_id)
    asyncio.run(charging.charge(attempt))
    job = get_current_job()
    job.meta["charge"] = attempt.record()
    job.save_meta()
    raise RuntimeError("the work failed after the debit")
