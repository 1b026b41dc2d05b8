from __future__ import annotations

import subprocess
import sys

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from warehouse.ledger import Agents, make_engine, migrate
from warehouse.ledger.db import alembic_config
from warehouse.ledger.tables import metadata


def head_revision() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def test_migrating_twice_is_harmless_and_keeps_data(ledger_url):
    migrate(ledger_url)
    engine = make_engine(ledger_url)
    agent, key = Agents(engine).register("survivor")
    migrate(ledger_url)
    assert Agents(engine).by_key(key)["id"] == agent["id"]
    with engine.connect() as conn:
        assert conn.scalar(text("SELECT version_num FROM alembic_version")) == head_revision()
    engine.dispose()


def test_the_migrations_create_exactly_the_declared_tables(engine):
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        differences = compare_metadata(context, metadata)
    assert differences == []
    assert set(inspect(engine).get_table_names()) == set(metadata.tables) | {"alembic_version"}


def test_two_processes_migrating_one_sqlite_file_at_once_both_succeed(tmp_path):
    """Started from an unrelated working directory, as an installed command would be."""
    url = f"sqlite:///{tmp_path / 'fresh.sqlite'}"
    code = f"from warehouse.ledger import migrate; migrate({url!r})"
    processes = [subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
    for process in processes:
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr
    engine = make_engine(url)
    with engine.connect() as conn:
        assert conn.scalar(text("SELECT version_num FROM alembic_version")) == head_revision()
    engine.dispose()
