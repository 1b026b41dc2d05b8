"""Published inputs for content on simulated data (seed 7) as of 2026-11-20: every non-ticker module, the four
ticker modules for one ticker, publish metas that say `simulated`, and the chart_series product, all computed
by the real `intel` code (as tests/api/conftest.py does for the API)."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from intel.content.chart_series import INPUTS, chart_series_view
from intel.frames import Frames
from intel.providers.sim import SimProvider
from intel.registry import modules
from intel.synthesis.published import SnapshotReader

AS_OF = date(2026, 11, 20)
NOW = datetime(2026, 11, 20, 21, 0, tzinfo=UTC)  # after the close: the clock's market day is AS_OF
TICKER = "AAPL"


@pytest.fixture(scope="session")
def published():
    """(module payloads, metas, products, ticker payloads) as the reader sees them."""
    registry = modules()
    provider = SimProvider(seed=7)
    inputs = sorted({sid for m in registry.values() for sid in m.inputs} | set(INPUTS))
    frames = Frames.from_long(provider.observations(inputs, AS_OF - timedelta(days=3700), AS_OF), AS_OF, "sim")
    payloads = {n: m.compute(frames) for n, m in registry.items() if not m.takes_ticker}
    closed = AS_OF - timedelta(days=1)  # ticker bars are final only for a closed day, as the API computes them
    tickers = {(n, TICKER): m.compute(frames, provider.bars(TICKER, closed - timedelta(days=m.lookback_days), closed),
                                      TICKER)
               for n, m in registry.items() if m.takes_ticker}
    metas = {n: {"as_of": p["as_of"], "data_as_of": p["data_as_of"], "published_at": 0.0, "data_source": "sim",
                 "simulated": True} for n, p in payloads.items()}
    products = {"chart_series": chart_series_view(frames, AS_OF, "sim", True)}
    return payloads, metas, products, tickers


@pytest.fixture
def reader(published):
    payloads, metas, products, tickers = published
    return SnapshotReader(payloads, metas, products, tickers)
