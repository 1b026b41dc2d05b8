"""docs/configuration.md's settings table is the one scripts/settings_doc.py generates from the Settings class."""
from __future__ import annotations

from tests.script_files import load_script


def test_the_configuration_page_lists_every_setting_as_the_class_describes_it():
    doc = load_script("settings_doc")
    page = doc.PAGE.read_text()
    assert doc.rewritten(page) == page, (
        f"{doc.PAGE.name}'s settings table differs from marketintel/settings.py: run `{doc.FIX}` and commit the page")


def test_a_row_names_the_environment_variable_its_default_and_what_it_does():
    rows = load_script("settings_doc").table().splitlines()
    assert rows[0] == "| environment variable | default | description |"
    assert "| `MI_HOME` | `var` | Folder for all local state |" in rows
    assert any(row.startswith("| `MI_DATABASE_URL` | unset | ") for row in rows)
    assert any(row.startswith('| `MI_COMMITMENT_PLANS` | `{"starter":{"credits_sats":10000,') for row in rows)
