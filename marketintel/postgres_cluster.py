"""A throwaway PostgreSQL cluster: initdb into a temporary folder, a server on a free loopback port, and
everything stopped and deleted on exit. The PostgreSQL counterpart of `redis_server.EmbeddedRedis`, for the
tests' `pg_url` fixture and the serving bench; never for real data (fsync is off)."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from marketintel.redis_server import free_port


def pg_bin(name: str) -> str | None:
    """A PostgreSQL program on PATH, else in the newest /usr/lib/postgresql/*/bin (Debian keeps them there)."""
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / name).exists():
            return str(folder / name)
    return None


def unavailable_reason() -> str | None:
    """Why no cluster can be started here, or None when it can."""
    if not (pg_bin("initdb") and pg_bin("pg_ctl")):
        return "PostgreSQL binaries (initdb, pg_ctl) not found"
    return None


@contextmanager
def throwaway_cluster(max_connections: int = 200, parent: Path | None = None) -> Iterator[str]:
    """Yields the SQLAlchemy URL of the cluster's `postgres` database (user `mi`, trust authentication). Its
    files go in a new folder under `parent` (default: the system's temporary folder)."""
    reason = unavailable_reason()
    if reason:
        raise RuntimeError(reason)
    initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
    folder = Path(tempfile.mkdtemp(prefix="mi-pg-", dir=parent))
    data = folder / "data"
    port = free_port()
    run_as: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        user = "postgres" if _user_exists("postgres") else "nobody"
        shutil.chown(folder, user)
        run_as = ["runuser", "-u", user, "--"]
    try:
        subprocess.run(run_as + [initdb, "-D", str(data), "-U", "mi", "--auth=trust", "-E", "UTF8"],
                       check=True, capture_output=True)
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections={max_connections} " \
                  "-c fsync=off"
        subprocess.run(run_as + [pg_ctl, "-D", str(data), "-l", str(folder / "log"), "-w", "-o", options, "start"],
                       check=True, capture_output=True)
        yield f"postgresql+psycopg://mi@127.0.0.1:{port}/postgres"
    finally:
        if data.exists():
            subprocess.run(run_as + [pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True)
            time.sleep(0.2)
        shutil.rmtree(folder, ignore_errors=True)


def create_database(admin_url: str, prefix: str = "db") -> str:
    """A new, empty database on the cluster of `admin_url`; returns its URL."""
    import sqlalchemy as sa

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return admin_url.rsplit("/", 1)[0] + f"/{name}"


def _user_exists(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False
