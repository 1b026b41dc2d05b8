"""compose.yaml's cluster as processes on this machine (bench/cluster_parts.py): PostgreSQL, Redis, a Lightning node
all share, two API instances, two worker hosts and the pipelines role on Dagster's PostgreSQL storage, each the real
`marketintel <role>`. Under mixed load (cached, paid, L402 and ask traffic) an API instance is killed, Redis restarted,
the Dagster daemon killed in the middle of a run and PostgreSQL restarted (bench/cluster_faults.py).

During each fault every answer is good (200, 402, an ask's 202) or a 503 with Retry-After, within BOUND_S, except the
requests the killed instance held when it died; after it the traffic is good again within RECOVER_WITHIN_S. The run
the daemon's death interrupted is ended (failed) and the next run goes through the one warehouse-writer slot. At the
end the ledger accounts for every sat and each instance's Prometheus counts equal the load generator's."""
from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bench.cluster import run_cluster
from bench.cluster_faults import GOOD
from marketintel.postgres_cluster import unavailable_reason
from tests.absent import absent
from tests.api.conftest import computed_payloads, publish  # noqa: F401 (the session fixture)
from tests.parallel import ALONE

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group(ALONE)]

MIX = {"cached": 2, "paid": 3, "l402": 2, "ask": 1}  # lighter than the bench's: the suite runs beside it
BOUND_S = 2.0  # the longest any answer of the cached, paid and L402 kinds may take during a fault
RECOVER_WITHIN_S = 10.0


@pytest.fixture(scope="module")
def outcome(tmp_path_factory, computed_payloads):  # noqa: F811
    """The bench's run, lighter: one gunicorn worker an instance, fewer clients, and the first publish from the
    session's sim computation instead of a refresh run (the daemon's fault runs the pipelines role's own)."""
    reason = unavailable_reason()
    if reason:
        absent(reason)
    return run_cluster(tmp_path_factory.mktemp("cluster"), api_workers=1, refresh_minutes=60, mix=MIX,
                       publish=lambda redis_url: publish(redis_url, computed_payloads))


def test_every_fault_is_answered_within_the_bound_and_recovers(outcome):
    for run in outcome["runs"]:
        row, killed_at = run.row, run.during[0].sent if run.during else 0.0
        for a in run.during:
            cut_off = row["fault"] == "api-2 killed" and a.code is None and a.sent - killed_at < 1.0
            assert a.status in GOOD or (a.code == 503 and a.retry_after) or cut_off, (row, a, outcome["logs"])
            assert a.kind == "ask" or a.waited <= BOUND_S, (row, a)
        assert row["recover_s"] is not None and row["recover_s"] < RECOVER_WITHIN_S, row
    statuses = {run.row["fault"]: run.row["statuses"] for run in outcome["runs"]}
    assert statuses["redis restarted"].get("503 dependency_unavailable:redis"), statuses  # the faults were met
    # PostgreSQL comes back within about a second, so a paced load may send nothing while it is down: the fault is
    # met when the server's start time moved
    facts = next(run.facts for run in outcome["runs"] if run.row["fault"] == "postgresql restarted")
    assert facts["server restarted:"] is True, facts


def test_the_run_a_dead_daemon_left_is_ended_and_the_next_goes_through(outcome):
    facts = next(run.facts for run in outcome["runs"] if run.row["fault"] == "dagster daemon killed mid-run")
    assert facts["killed run:"] == "FAILURE" and facts["next run (quality):"] == "SUCCESS", facts
    assert "pipelines exited with code 1; restarted" in outcome["events"]
    # an API instance restarted by the policy died on its own (the killed one is brought back by its fault)
    assert not [event for event in outcome["events"] if event.startswith("api-")], outcome["events"]


def test_every_kind_was_served_and_every_sat_is_accounted_for(outcome):
    served = {kind: sum(1 for a in outcome["load"].answers if a.kind == kind and a.code == 200)
              for kind in outcome["kinds"]}
    assert all(served.values()), served
    assert outcome["ledger"] == []


def test_prometheus_counts_agree_with_the_load_generator(outcome):
    assert outcome["prometheus"] == [], outcome["scraped"]
    assert all(figures["requests"] > 50 for figures in outcome["scraped"].values()), outcome["scraped"]
    runs = {(s.labels["job"], s.labels["status"]): s.value for family in text_string_to_metric_families(
        outcome["role_metrics"]["pipelines"]) for s in family.samples if s.name == "marketintel_dagster_runs"}
    assert runs[("refresh_job", "failure")] >= 1 and runs[("quality_job", "success")] >= 1, runs  # the daemon fault's
    list(text_string_to_metric_families(outcome["role_metrics"]["worker-1"]))  # the worker role's own, well-formed


def test_every_role_stops_on_sigterm_with_everything_it_started(outcome):
    assert outcome["stopped"] == {name: 0 for name in ("api-1", "api-2", "worker-1", "worker-2", "pipelines")}
    assert outcome["left"] == {name: [] for name in outcome["stopped"]}, outcome["left"]
