"""A fresh database on the session's throwaway PostgreSQL cluster (the `pg_url` fixture)."""
from __future__ import annotations

import uuid

import sqlalchemy as sa


def fresh_database(admin_url: str) -> str:
    name = f"db_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return admin_url.rsplit("/", 1)[0] + f"/{name}"
