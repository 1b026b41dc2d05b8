"""The Dagster instance under `settings.dagster_home`: local storage (Dagster's SQLite files, through
`pipelines/storage.py`) and one warehouse-writing run at a time."""
from __future__ import annotations

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

DAGSTER_YAML = """\
# Written by pipelines/instance.py (`ensure_dagster_home`); edits are overwritten.
storage:
  custom:
    module: pipelines.storage
    class: SqliteStorage
    config:
      base_dir: {storage}
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
telemetry:
  enabled: false
nux:
  enabled: false
"""


def ensure_dagster_home(settings: Settings) -> Path:
    """Create `settings.dagster_home` with its dagster.yaml (rewritten when it differs); returns the folder."""
    home = settings.dagster_home.resolve()
    home.mkdir(parents=True, exist_ok=True)
    text = DAGSTER_YAML.format(home=home, storage=home / "storage", logs=home / "logs", tag=WAREHOUSE_TAG,
                                history_tag=HISTORY_TAG)
    config = home / "dagster.yaml"
    if not config.exists() or config.read_text() != text:
        config.write_text(text)
    return home
