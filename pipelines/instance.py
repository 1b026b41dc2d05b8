"""The Dagster instance under `settings.dagster_home`: runs, event logs and schedules in PostgreSQL when the ledger is
there (dagster-postgres, in the `dagster` schema or MI_DAGSTER_DATABASE_URL), else in Dagster's SQLite files (through
`pipelines/storage.py`); the queued run coordinator, with one warehouse-writing run at a time."""
from __future__ import annotations

import os
from pathlib import Path

from marketintel.settings import Settings

# Every job that writes the warehouse carries this tag; the run queue lets one such run go at a time,
# because DuckDB allows a single writing process (see DESIGN.md, Known traps).
WAREHOUSE_TAG = "marketintel/warehouse"
WAREHOUSE_TAGS = {WAREHOUSE_TAG: "writer"}
# The module history has a file of its own (warehouse/history_store.py): its runs queue behind each other only,
# so a backfill of years never holds back the refresh.
HISTORY_TAG = "marketintel/history"
HISTORY_TAGS = {HISTORY_TAG: "writer"}

SQLITE_STORAGE = """\
  custom:
    module: pipelines.storage
    class: SqliteStorage
    config:
      base_dir: {storage}"""
# The URL is read from the environment (set by ensure_dagster_home, inherited by the daemon and the UI) rather than
# written here: the file would otherwise hold the database password.
POSTGRES_STORAGE = """\
  postgres:
    postgres_url:
      env: {url_env}"""
DAGSTER_URL_ENV = "MI_DAGSTER_POSTGRES_URL"
DAGSTER_SCHEMA = "dagster"  # beside the ledger's tables: Dagster's own alembic_version would collide with the ledger's

DAGSTER_YAML = """\
# Written by pipelines/instance.py (`ensure_dagster_home`); edits are overwritten.
storage:
{storage}
local_artifact_storage:
  module: dagster._core.storage.root
  class: LocalArtifactStorage
  config:
    base_dir: {home}
compute_logs:
  module: dagster._core.storage.local_compute_log_manager
  class: LocalComputeLogManager
  config:
    base_dir: {logs}
run_coordinator:
  module: dagster._core.run_coordinator
  class: QueuedRunCoordinator
concurrency:
  runs:
    max_concurrent_runs: 4
    tag_concurrency_limits:
      - key: "{tag}"
        limit: 1
      - key: "{history_tag}"
        limit: 1
# A run stuck STARTING (its code server died while launching it) or CANCELING is ended after 3 minutes. The default
# launcher cannot report whether a run worker is alive, so a STARTED run whose role died is ended on the role's next
# start instead (pipelines/orphaned_runs.py).
run_monitoring:
  enabled: true
  start_timeout_seconds: 180
  cancel_timeout_seconds: 180
  max_resume_run_attempts: 0
  poll_interval_seconds: 60
telemetry:
  enabled: {telemetry}
nux:
  enabled: false
"""


def ensure_dagster_home(settings: Settings) -> Path:
    """Create `settings.dagster_home` with its dagster.yaml (rewritten when it differs); returns the folder."""
    home = settings.dagster_home.resolve()
    home.mkdir(parents=True, exist_ok=True)
    url = dagster_database_url(settings)
    if url is None:
        storage = SQLITE_STORAGE.format(storage=home / "storage")
    else:
        os.environ[DAGSTER_URL_ENV] = url
        storage = POSTGRES_STORAGE.format(url_env=DAGSTER_URL_ENV)
    text = DAGSTER_YAML.format(home=home, storage=storage, logs=home / "logs", tag=WAREHOUSE_TAG,
                               history_tag=HISTORY_TAG, telemetry=str(settings.dagster_telemetry).lower())
    if settings.dagster_instance_extra is not None:
        text += operator_settings(settings.dagster_instance_extra, text)
    config = home / "dagster.yaml"
    if not config.exists() or config.read_text() != text:
        config.write_text(text)
    return home


def operator_settings(path: Path, generated: str) -> str:
    """The operator's instance settings (MI_DAGSTER_INSTANCE_EXTRA), to append to the generated file; ValueError when
    the file is not a YAML mapping or repeats a key the generated file sets (Dagster would take either silently)."""
    import yaml

    extra = path.read_text()
    keys = yaml.safe_load(extra)
    if not isinstance(keys, dict):
        raise ValueError(f"MI_DAGSTER_INSTANCE_EXTRA ({path}) must be a YAML mapping of instance settings")
    repeated = sorted(set(keys) & set(yaml.safe_load(generated)))
    if repeated:
        raise ValueError(f"MI_DAGSTER_INSTANCE_EXTRA ({path}) repeats {', '.join(repeated)}, which marketintel sets")
    return f"# from {path} (MI_DAGSTER_INSTANCE_EXTRA)\n{extra.rstrip()}\n"


def dagster_database_url(settings: Settings) -> str | None:
    """Dagster's PostgreSQL URL (psycopg2, dagster-postgres' driver): MI_DAGSTER_DATABASE_URL as given, else the
    ledger's database with its tables in the `dagster` schema (created here); None on SQLite."""
    if settings.dagster_database_url:
        return settings.dagster_database_url
    if not settings.database_url or not settings.database_url.startswith("postgresql"):
        return None
    from sqlalchemy import create_engine, make_url, text

    engine = create_engine(settings.database_url)
    try:
        with engine.begin() as conn:
            conn.execute(text(f"create schema if not exists {DAGSTER_SCHEMA}"))
    finally:
        engine.dispose()
    url = make_url(settings.database_url).set(drivername="postgresql+psycopg2",
                                              query={"options": f"-csearch_path={DAGSTER_SCHEMA}"})
    return url.render_as_string(hide_password=False)
