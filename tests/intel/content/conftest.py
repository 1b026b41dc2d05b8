"""Content reads the published sim inputs of tests/sim_published.py (every non-ticker module, the ticker modules
for one ticker, metas that say `simulated`, and the products, chart_series among them), computed once."""
from __future__ import annotations

import pytest

from intel.synthesis.published import SnapshotReader
from tests.sim_published import compute_published


@pytest.fixture(scope="session")
def published():
    """(module payloads, metas, products, ticker payloads) as the reader sees them."""
    p = compute_published()
    return p.payloads, p.metas, p.products, p.tickers


@pytest.fixture
def reader(published):
    payloads, metas, products, tickers = published
    return SnapshotReader(payloads, metas, products, tickers)
