"""RQ job: record a query in the usage statistics, off the request path."""
from __future__ import annotations

from functools import lru_cache

from marketintel.settings import get_settings
from warehouse.ledger.db import make_engine
from warehouse.ledger import Usage


@lru_cache(maxsize=1)
def _usage() -> Usage:
    return Usage(make_engine(get_settings().sqlalchemy_url))


def record_usage(request_id: str, module: str, charged_sats: int, free: bool,
                 agent_pk: int | None, client: str | None) -> None:
    _usage().record(request_id, module, charged_sats, free, agent_pk=agent_pk, client=client)
