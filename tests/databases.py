"""Fresh ledger databases for tests, migrated once per session and copied for each test.

Running the Alembic upgrade costs every test a script-directory load and a dozen DDL statements; a copy of an
already-migrated database is the same state for a fraction of that. SQLite: one migrated file per session
(`migrated_sqlite_file`, behind the `migrated_sqlite` fixture) copied to each test's path. PostgreSQL: one
migrated database per cluster, closed to connections and used as the template of `CREATE DATABASE`.
"""
from __future__ import annotations

import shutil
import uuid
from pathlib import Path

from sqlalchemy import create_engine, make_url, text

from marketintel.postgres_cluster import create_database

_PG_TEMPLATES: dict[str, str] = {}  # admin URL -> name of its migrated template database


def fresh_database(admin_url: str, migrated: bool = False) -> str:
    """The URL of a new database on the cluster of `admin_url` (the `pg_url` fixture): empty, as a caller
    that runs `migrate` itself needs it (the e2e stack migrates through the CLI), or with `migrated` a copy
    of the session's migrated template."""
    if not migrated:
        return create_database(admin_url)
    template = _PG_TEMPLATES.get(admin_url) or _migrated_template(admin_url)
    name = f"db_{uuid.uuid4().hex[:12]}"
    _admin_execute(admin_url, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return make_url(admin_url).set(database=name).render_as_string(hide_password=False)


def _migrated_template(admin_url: str) -> str:
    from warehouse.ledger.db import migrate

    url = create_database(admin_url, prefix="migrated_template")
    migrate(url)  # disposes its engine: no connection is left open on the template
    name = make_url(url).database
    # Nobody may connect to it any more, so no session can hold it open when it is copied (PostgreSQL refuses
    # to copy a database with other sessions in it) and no test can change it by mistake.
    _admin_execute(admin_url, f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false IS_TEMPLATE true')
    _PG_TEMPLATES[admin_url] = name
    return name


def _admin_execute(admin_url: str, statement: str) -> None:
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text(statement))
    finally:
        engine.dispose()


def migrated_sqlite_file(path: Path) -> Path:
    """Migrate a new SQLite file at `path` and leave it closed and checkpointed (no -wal or -shm beside it),
    so that a plain file copy is the whole database."""
    from warehouse.ledger.db import migrate

    migrate(f"sqlite:///{path}")
    leftovers = [p for p in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")) if p.exists()]
    if leftovers:
        raise RuntimeError(f"the migrated template was not checkpointed: {leftovers}")
    return path


def copy_sqlite(template: Path, url: str) -> bool:
    """Copy the migrated `template` to the file of the SQLite `url`, if that file does not exist yet.
    Returns False (and copies nothing) for other URLs or existing files: those still need `migrate`."""
    parsed = make_url(url)
    database = parsed.database
    if parsed.get_backend_name() != "sqlite" or not database or database == ":memory:" \
            or database.startswith("file:"):
        return False
    target = Path(database)
    if target.exists():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, target)
    return True
