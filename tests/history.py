"""Where the real market history lives for tests (`../shared/data/history` from the project root)."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HISTORY_DIR = (ROOT / ".." / "shared" / "data" / "history").resolve()


def history_dir() -> Path:
    """The real history folder, or skip the calling test saying why."""
    if not HISTORY_DIR.is_dir():
        pytest.skip(f"real history folder absent at {HISTORY_DIR}")
    return HISTORY_DIR
