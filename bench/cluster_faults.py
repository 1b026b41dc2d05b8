"""The cluster's faults under the mixed load (bench/cluster_load.py), one after another on one running cluster, and the
checks after them: the ledger (every sat accounted for, no token or charge spent twice, no refund lost) and
Prometheus (each instance's counts equal what the load generator saw it answer since it last started).

A fault row: {"fault", "requests", "statuses", "p99_ms", "part_back_s", "recover_s", "note"}, where `statuses` and
`p99_ms` cover the answers sent while the part was down (p99 over the cached, paid and L402 kinds: an ask waits for
its composer by design), `part_back_s` is from the fault to the part serving again, and `recover_s` from then to the
first request after which every answer was good (200, 402, or an ask's 202)."""
from __future__ import annotations

import os
import signal
import time
from collections import Counter
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families

from bench.cluster_load import ROUTES, Answer, MixedLoad, by_status
from bench.fault_cases_api import p99_ms

GOOD = {"200", "402", "202"}
SETTLED_S = 3.0  # good answers for this long after the part's return: recovered
WATCH_S = 20.0  # the longest the recovery is watched for


@dataclass
class FaultRun:
    row: dict
    during: list[Answer]
    facts: dict = field(default_factory=dict)  # what the fault's own checks found (the runs' outcomes...)


def run_fault(cluster, load: MixedLoad, name: str, fail, restore, note: str, settle=None) -> FaultRun:
    """`fail()`, then `restore()` (returning once the part serves again), then `settle()` for the fault's own
    facts (a dict) while the traffic's recovery is watched; the row."""
    time.sleep(2.0)  # undisturbed traffic between faults
    failed_at, began = load.now(), time.monotonic()
    fail()
    restore()
    back_at, part_back_s = load.now(), time.monotonic() - began
    facts = settle() if settle else {}
    recovered_at = watch_recovery(load, back_at)
    during = [a for a in load.answers if failed_at <= a.sent <= back_at]
    row = {"fault": name, "requests": len(during), "statuses": by_status(during),
           "p99_ms": p99_ms([a.waited for a in during if a.kind != "ask"]),
           "part_back_s": round(part_back_s, 1),
           "recover_s": None if recovered_at is None else round(max(0.0, recovered_at - back_at), 1),
           "failovers": sum(a.failovers for a in during),
           "note": "; ".join([note, *(f"{k} {v}" for k, v in facts.items())])}
    return FaultRun(row, during, facts)


def watch_recovery(load: MixedLoad, back_at: float) -> float | None:
    """Load time of the first request sent after `back_at` from which every answer, for SETTLED_S, was good."""
    deadline = time.monotonic() + WATCH_S
    while time.monotonic() < deadline:
        time.sleep(0.5)
        after = sorted((a for a in list(load.answers) if a.sent >= back_at), key=lambda a: a.sent)
        first_good = None
        for a in after:
            first_good = (first_good if first_good is not None else a.sent) if a.status in GOOD else None
        if first_good is not None and after[-1].sent - first_good >= SETTLED_S:
            return first_good
    return None


# the four faults
def api_killed(cluster, load: MixedLoad, down_s: float = 3.0) -> FaultRun:
    role = cluster.roles["api-2"]

    def fail() -> None:
        with role.lock:
            role.wanted = False
            role.kill()

    def restore() -> None:
        time.sleep(down_s)
        with role.lock:
            role.start()
            role.wanted = True
        cluster.wait_for_api(2)

    return run_fault(cluster, load, "api-2 killed", fail, restore,
                     f"SIGKILL to every process of the instance, {down_s:g} s down, then started again")


def redis_restarted(cluster, load: MixedLoad, down_s: float = 3.0) -> FaultRun:
    return run_fault(cluster, load, "redis restarted", cluster.redis.stop,
                     lambda: (time.sleep(down_s), cluster.start_redis()),
                     f"SHUTDOWN (saving), {down_s:g} s down, a new server on the port from the same folder")


def daemon_killed(cluster, load: MixedLoad) -> FaultRun:
    """A refresh run in progress, then the pipelines role's dagster-daemon SIGKILLed: the role stops, the restart
    policy starts it again, the role releases the run its last life left in progress, and the next run goes."""
    run_id = cluster.submit("refresh_job")
    while cluster.run_status(run_id) != "STARTED":
        time.sleep(0.2)
    time.sleep(2.0)

    def settle() -> dict:
        killed = cluster.wait_for_run(run_id)
        began = time.monotonic()
        # the quality checks: a warehouse run like the refresh (the same writer slot), without a run of its own after
        following = cluster.wait_for_run(cluster.submit("quality_job"))
        return {"killed run:": killed, "next run (quality):": following,
                "next run s:": round(time.monotonic() - began, 1)}

    killed_at = []

    def fail() -> None:
        killed_at.append(time.time())
        os.kill(cluster.daemon().pid, signal.SIGKILL)

    return run_fault(cluster, load, "dagster daemon killed mid-run", fail,
                     lambda: cluster.wait_for_dagster(since=killed_at[0]),
                     "SIGKILL to dagster-daemon while a refresh run writes; back: every daemon beating again", settle)


def postgres_restarted(cluster, load: MixedLoad) -> FaultRun:
    before = cluster.postgres_started_at()
    return run_fault(cluster, load, "postgresql restarted", cluster.restart_postgres, cluster.wait_for_dagster,
                     "pg_ctl restart -m fast: the ledger and Dagster's storage; back: Dagster reads its storage and "
                     "reports every daemon healthy",
                     lambda: {"server restarted:": cluster.postgres_started_at() > before})


FAULTS = [api_killed, redis_restarted, daemon_killed, postgres_restarted]


# the checks
def ledger_problems(engine, ledger: dict, load: MixedLoad, funding_sats: int) -> list[str]:
    """The ledger's own check, then each keyed client's charges against its answers (`ledger`: by agent, as
    tests/e2e/paid_load.ledger_by_agent reads it; a kept charge without a good answer is allowed only for a request
    that got no answer at all: the kill cut it off), and each L402 token spent by exactly the redemption that was
    answered."""
    from sqlalchemy import select

    from warehouse.ledger import check_consistency
    from warehouse.ledger.tables import l402_tokens

    problems = check_consistency(engine)
    for kind in ("paid", "ask"):
        for agent in load.agents[kind]:
            entry, mine = ledger[agent["agent_id"]], [a for a in load.answers if a.agent_id == agent["agent_id"]]
            kept = {rid: -amount for rid, amount in entry["queries"].items() if rid not in entry["refunds"]}
            answered = {a.request_id: a.charged_sats for a in mine if a.code == 200 and a.charged_sats}
            cut_off = sum(1 for a in mine if a.code is None and a.kind == kind)
            if not answered.items() <= kept.items():
                problems.append(f"{agent['agent_id']}: paid answers without their charge: "
                                f"{sorted(set(answered) - set(kept))[:3]}")
            if len(set(kept) - set(answered)) > cut_off:
                problems.append(f"{agent['agent_id']}: {len(set(kept) - set(answered))} charges kept without a good "
                                f"answer, {cut_off} requests cut off")
            if entry["balance"] != funding_sats - sum(kept.values()):
                problems.append(f"{agent['agent_id']}: balance {entry['balance']} != {funding_sats} - charges kept")
    with engine.connect() as conn:
        spent = {row.payment_hash: row.spent_by for row in conn.execute(
            select(l402_tokens.c.payment_hash, l402_tokens.c.spent_by).where(l402_tokens.c.spent_at.is_not(None)))}
    redeemed = [a for a in load.answers if a.payment_hash]
    for a in redeemed:
        if a.code == 200 and spent.get(a.payment_hash) != a.request_id:
            problems.append(f"L402 answer {a.request_id}: its token is spent by {spent.get(a.payment_hash)}")
        if a.code not in (200, None) and a.payment_hash in spent:
            problems.append(f"L402 token {a.payment_hash[:12]} spent by a redemption answered {a.status}")
    return problems


def scrape(base: str) -> dict[tuple, float]:
    import httpx

    text = httpx.get(f"{base}/metrics", timeout=10).text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def prometheus_disagreements(cluster, load: MixedLoad, charged: set[str]) -> tuple[list[str], dict]:
    """Per instance, since its latest start: requests by route, method and status, balance charges and L402 tokens
    kept, as scraped and as the load generator saw them. Returns (disagreements, the figures).

    A balance charge is counted by the instance that took it, whatever happens to it after: a refund may be made by
    another process (an ask's by the worker that ran it, or by any instance its owner polls). So the charges compared
    are every request the instance answered whose id has a charge in the ledger (`charged`), refunded or not."""
    problems, figures = [], {}
    for n, base in enumerate(cluster.bases):
        since = cluster.roles[f"api-{n + 1}"].started_at - load.began
        mine = [a for a in load.answers if a.instance == n and a.sent >= since]
        counted = Counter((ROUTES[a.path], a.method, str(a.code)) for a in mine)
        metrics = scrape(base)
        seen = Counter({(dict(labels)["route"], dict(labels)["method"], dict(labels)["status"]): int(value)
                        for (name, labels), value in metrics.items()
                        if name == "marketintel_http_requests_total" and dict(labels)["route"] in ROUTES.values()})
        if +seen != +counted:
            problems.append(f"api-{n + 1} requests: scraped {dict(seen - counted)} beyond, "
                            f"{dict(counted - seen)} short of the load generator's")

        def value(name: str, **labels) -> int:
            return int(metrics.get((name, tuple(sorted(labels.items()))), 0))

        charges = value("marketintel_charges_total", pool="balance")
        paid = sum(1 for a in mine if a.request_id in charged)
        tokens = value("marketintel_l402_tokens_spent_total") - value("marketintel_refunds_total", pool="l402")
        redeemed = sum(1 for a in mine if a.code == 200 and a.payment_hash)
        if (charges, tokens) != (paid, redeemed):
            problems.append(f"api-{n + 1}: scraped {charges} balance charges and {tokens} L402 tokens kept; it "
                            f"answered {paid} requests the ledger charged and {redeemed} paid with a token")
        figures[f"api-{n + 1}"] = {"requests": sum(counted.values()), "scraped": sum(seen.values()),
                                   "charges": charges, "l402_tokens": tokens}
    return problems, figures
