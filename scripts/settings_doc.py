"""The settings table of docs/configuration.md, generated from `marketintel.settings.Settings`.

    .venv/bin/python scripts/settings_doc.py           # print the table
    .venv/bin/python scripts/settings_doc.py --write   # rewrite it in docs/configuration.md

The class is the one source: each field's environment variable, default and description. The page holds the
table between two marker comments, so the prose around it is written by hand; tests/scripts/test_settings_doc.py
fails when the page and the class disagree."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from marketintel.settings import Settings  # noqa: E402

PAGE = ROOT / "docs" / "configuration.md"
BEGIN, END = "<!-- settings:begin -->", "<!-- settings:end -->"
FIX = ".venv/bin/python scripts/settings_doc.py --write"


def default_text(field) -> str:
    """The default as an operator would write it in the environment; `unset` for None."""
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if isinstance(value, bool):
        value = str(value).lower()
    elif isinstance(value, dict):  # pydantic-settings reads a dict setting as JSON
        value = json.dumps(value, separators=(",", ":"))
    return f"`{value}`"


def table() -> str:
    """One row per field, in the class's order (it groups related settings)."""
    prefix = Settings.model_config["env_prefix"]
    rows = ["| environment variable | default | description |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        if not field.description:  # the page would have a blank: the code must say what the setting does
            raise ValueError(f"Settings.{name} has no description: give it Field(..., description=...)")
        description = " ".join(field.description.split()).replace("|", "\\|")  # a bare | would split the cell
        rows.append(f"| `{prefix}{name.upper()}` | {default_text(field)} | {description} |")
    return "\n".join(rows) + "\n"


def rewritten(page: str) -> str:
    """`page` with the region between the markers replaced by the generated table."""
    if page.count(BEGIN) != 1 or page.count(END) != 1:
        raise ValueError(f"{PAGE.name} needs exactly one {BEGIN} and one {END}")
    before, rest = page.split(BEGIN)
    _, after = rest.split(END)
    return f"{before}{BEGIN}\n{table()}{END}{after}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite the table in {PAGE.relative_to(ROOT)}")
    if parser.parse_args().write:
        PAGE.write_text(rewritten(PAGE.read_text()))
        print(f"rewrote the settings table of {PAGE.relative_to(ROOT)}")
    else:
        print(table(), end="")


if __name__ == "__main__":
    main()
