"""A fresh database on the session's throwaway PostgreSQL cluster (the `pg_url` fixture)."""
from __future__ import annotations

from marketintel.postgres_cluster import create_database


def fresh_database(admin_url: str) -> str:
    return create_database(admin_url)
