"""The container files, checked with what runs on this machine (it runs no containers): hadolint on the Dockerfile,
the Compose specification's JSON schema on compose.yaml, and every role, setting and upstream they name is one the
service has."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from marketintel.cli import ROLES
from marketintel.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def test_hadolint_finds_nothing_in_the_dockerfile():
    done = subprocess.run([str(BIN / "hadolint"), "--failure-threshold", "info", str(ROOT / "Dockerfile")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_compose_holds_to_the_compose_specification():
    """The specification's own schema, as check-jsonschema vendors it (YAML merge keys resolved, as Compose does)."""
    done = subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.compose-spec",
                           str(ROOT / "compose.yaml")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_compose_names_only_what_the_service_has():
    services = compose()["services"]
    commands = {name: s["command"][0] for name, s in services.items() if "command" in s and "image" in s
                and s["image"].startswith("marketintel")}
    assert set(commands.values()) == {*ROLES, "migrate"}, commands
    assert sorted(n for n, c in commands.items() if c == "api") == ["api-1", "api-2"]
    assert sorted(n for n, c in commands.items() if c == "worker") == ["worker-1", "worker-2"]
    settings = {f"MI_{name.upper()}" for name in Settings.model_fields}
    named = {key for s in services.values() for key in (s.get("environment") or {}) if key.startswith("MI_")}
    example = (ROOT / "deploy" / "marketintel.env.example").read_text()
    named |= set(re.findall(r"^(MI_[A-Z0-9_]+)=", example, re.MULTILINE))
    assert named <= settings, named - settings
    upstreams = set(re.findall(r"(api-\d+):8000", (ROOT / "deploy" / "Caddyfile").read_text()))
    assert upstreams == {"api-1", "api-2"}
