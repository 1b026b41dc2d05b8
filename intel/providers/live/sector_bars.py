"""The sector ETF series from daily-bar providers: each series is the ETF's split- and dividend-adjusted close
(the catalog's `ADJUSTED`), so only providers whose bars are adjusted serve it (Tiingo's `adjClose`, Stooq's
closes); Alpha Vantage's free daily series is unadjusted and would mean something else."""
from __future__ import annotations

from datetime import date
from types import ModuleType

from intel.catalog import SECTORS
from intel.providers.live import stooq as stooq_module
from intel.providers.live import tiingo as tiingo_module
from intel.providers.live.client import LiveConfig, SourceClient, SourceError

FIRST = date(1990, 1, 1)  # no provider has ETF bars before the first ETF (1993)


class BarsAsSeries:
    """A daily-bar provider seen as a source of the sector series (the `sources` module contract)."""

    SERIES = {sid: sid for sid in SECTORS}  # noqa: RUF012  (read-only, as a module's)
    DERIVED: dict[str, str] = {}  # noqa: RUF012

    def __init__(self, module: ModuleType, key_field: str | None = None) -> None:
        self.module, self.key_field = module, key_field
        self.NAME = module.__name__.rsplit(".", 1)[-1]

    def client_options(self, config: LiveConfig) -> dict:
        return self.module.client_options(getattr(config, self.key_field)) if self.key_field else {}

    def fetch(self, client: SourceClient, ids: list[str], start: date, end: date):
        got, failed = {}, {}
        for sid in ids:  # one request per ETF: one refusal does not cost the others
            try:
                got[sid] = [(b[0], b[4]) for b in self.module.daily(client, sid, max(start, FIRST), end)]
            except SourceError as exc:
                failed[sid] = str(exc)
        return got, failed


tiingo = BarsAsSeries(tiingo_module, "tiingo_api_key")
stooq = BarsAsSeries(stooq_module)
