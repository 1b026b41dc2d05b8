"""The wire-format tests' local publisher: `history` (the real history files up to the test module's `TODAY`) and
`server` (every wire module over it, fresh per test). A module with other needs defines its own fixtures."""
from __future__ import annotations

import pytest

from tests.history import history_dir
from tests.intel.providers.live.history_server import History, HistoryServer


@pytest.fixture(scope="module")
def history(request) -> History:
    return History(history_dir(), request.module.TODAY)


@pytest.fixture
def server(history):
    with HistoryServer(history) as srv:
        yield srv
