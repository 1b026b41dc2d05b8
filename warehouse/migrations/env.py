"""Alembic environment for the ledger.

`warehouse.ledger.migrate` passes an open connection (already inside a locked transaction) in
`config.attributes["connection"]`; the command line gets an engine built from `-x url=...` or the settings.
"""
from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from warehouse.ledger.db import make_engine
from warehouse.ledger.tables import metadata

config = context.config


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url")
    if url:
        return url
    from marketintel.settings import get_settings

    return get_settings().sqlalchemy_url


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True,
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = _url()
    # SQLite: batch mode rebuilds a table (copy, DROP, rename), and with foreign keys enforced (as the
    # ledger's engine does) dropping `agents` fails while rows point at it. SQLite's documented table-rebuild
    # procedure runs with them off, so the command line migrates on a plain engine, as `migrate()` does
    # through its own connection.
    engine = create_engine(url, connect_args={"timeout": 30}) if url.startswith("sqlite") else make_engine(url)
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
