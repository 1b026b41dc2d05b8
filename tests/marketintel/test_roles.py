"""A role without an external Redis refuses to start and says what to set. Every role starting on its own against the
deployment's Redis and ledger, serving, and stopping with everything it started is tests/deploy/test_cluster.py's."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from marketintel.roles import problems
from marketintel.settings import Settings

BIN = Path(sys.executable).parent


def test_a_role_without_an_external_redis_says_what_to_set(mi_home, monkeypatch):
    monkeypatch.delenv("MI_REDIS_URL", raising=False)
    env = {k: v for k, v in os.environ.items() if k != "MI_REDIS_URL"}
    done = subprocess.run([str(BIN / "marketintel"), "worker"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "set MI_REDIS_URL" in done.stderr, done.stderr
    assert problems(Settings(redis_url="redis://127.0.0.1:1/0", source="replay", clock_speed=1.0), "api") == [
        "set MI_CLOCK_ANCHOR (the same epoch seconds for every role): a replay's clock runs from it"]
