"""Synthesis tests read payloads the real modules computed on simulated data (tests/sim_published.py),
computed once per session."""
from __future__ import annotations

import pytest

from tests.sim_published import compute_published, reader_of


@pytest.fixture(scope="session")
def sim_published():
    return compute_published()


@pytest.fixture
def reader(sim_published):
    return reader_of(sim_published)
