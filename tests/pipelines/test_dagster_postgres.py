"""With the ledger on PostgreSQL, Dagster keeps its runs, event logs and schedules there too (dagster-postgres), in
a schema of its own beside the ledger's tables: a materialization's run and events land in `dagster`, and the
ledger's own migration record is untouched. The written dagster.yaml holds no password."""
from __future__ import annotations

from dagster import DagsterInstance, asset, materialize
from sqlalchemy import create_engine, text

from marketintel.settings import Settings
from pipelines.instance import DAGSTER_SCHEMA, ensure_dagster_home
from tests.databases import fresh_database


@asset
def answer() -> int:
    return 42


def test_dagster_keeps_its_runs_in_the_ledgers_database_in_a_schema_of_its_own(mi_home, pg_url, monkeypatch):
    ledger = fresh_database(pg_url, migrated=True)
    monkeypatch.setenv("MI_DATABASE_URL", ledger)
    engine = create_engine(ledger)
    with engine.connect() as conn:
        head = conn.execute(text("select version_num from public.alembic_version")).scalar_one()
    home = ensure_dagster_home(Settings())
    config = (home / "dagster.yaml").read_text()
    assert "postgres_url" in config and "MI_DAGSTER_POSTGRES_URL" in config
    assert engine.url.database not in config  # the URL (and a password in it) comes from the environment
    with DagsterInstance.from_config(str(home)) as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        result = materialize([answer], instance=instance)
        assert result.success
    with engine.connect() as conn:
        runs = conn.execute(text(f"select count(*) from {DAGSTER_SCHEMA}.runs")).scalar_one()
        events = conn.execute(text(f"select count(*) from {DAGSTER_SCHEMA}.event_logs")).scalar_one()
        assert conn.execute(text("select version_num from public.alembic_version")).scalar_one() == head
    assert runs == 1 and events > 5
    engine.dispose()


def test_the_pipelines_role_reports_runs_by_job_and_state(mi_home):
    from pipelines.run_metrics import DagsterRuns

    home = ensure_dagster_home(Settings())
    with DagsterInstance.from_config(str(home)) as instance:
        assert materialize([answer], instance=instance).success
    family = next(iter(DagsterRuns(home).collect()))
    counts = {(s.labels["job"], s.labels["status"]): s.value for s in family.samples}
    job = "__ephemeral_asset_job__"  # `materialize`'s own job
    assert counts[(job, "success")] == 1 and counts[(job, "failure")] == 0, counts
