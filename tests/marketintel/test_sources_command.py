"""`marketintel sources` as an operator runs it: a process, the settings from the environment, Redis unreachable
before any ingest (the configured coverage), and the JSON form for scripts."""
from __future__ import annotations

import os
import socket
import subprocess
import sys

import orjson

from tests.intel.providers.live.wire import fred as fred_wire


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    with socket.socket() as sock:  # a port nothing listens on: Redis down, the report falls back to the settings
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MI_")}
    environ.update({"MI_REDIS_URL": f"redis://127.0.0.1:{port}/0", "COLUMNS": "200", **env})
    return subprocess.run([sys.executable, "-m", "marketintel.cli", "sources", *args], env=environ,
                          capture_output=True, text=True, timeout=60)


def test_without_keys_it_names_the_keys_and_what_they_add():
    out = run()
    assert out.returncode == 0, out.stderr
    assert "MI_FRED_API_KEY would add" in out.stdout and "MI_TIINGO_API_KEY would add 11 series" in out.stdout
    assert "live: " in out.stdout.splitlines()[-1] or "live: " in out.stdout


def test_json_with_a_fred_key_has_only_the_sector_etfs_missing():
    out = run("--json", MI_FRED_API_KEY=fred_wire.KEY)
    assert out.returncode == 0, out.stderr
    report = orjson.loads(out.stdout)
    assert set(report["keys"]) == {"MI_TIINGO_API_KEY"}
    assert report["series"]["UNRATE"]["status"] == "live" and report["series"]["XLK"]["status"] == "unavailable"
    assert report["summary"].endswith("set MI_TIINGO_API_KEY for the rest")
    assert fred_wire.KEY not in out.stdout  # the key is never shown
