"""The service's Prometheus metrics (prometheus-client), counted where things happen in every process that serves or
charges: requests by route, method and status and their latency (api/metrics.py's middleware), charges and refunds
by pool, 402 answers and L402 tokens spent (the charging service, the one path for money).

Under gunicorn each worker writes its counts to files in PROMETHEUS_MULTIPROC_DIR (set, and emptied, by `up` and the
roles before their processes start): `/metrics` adds every process's files up (prometheus-client's multiprocess
mode), and gunicorn's `child_exit` hook (api/gunicorn_hooks.py) marks a dead worker's gauges. Without the variable
(tests, a bare `gunicorn`) the counts stay in the process.

What is deployment-wide state rather than an event (published copies' ages, sources, queues, deliveries, streams) is
read at scrape time: api/prometheus_state.py. No label names an agent or a key: one label value per agent would
grow without bound."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from prometheus_client import Counter, Histogram

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
NS = "marketintel"

REQUESTS = Counter(f"{NS}_http_requests_total", "HTTP requests answered, by route template, method and status",
                   ["route", "method", "status"])
# from 1 ms to 10 s: a cached module answers in about a millisecond, a deep ask waits up to a minute (the +Inf bucket)
LATENCY = Histogram(f"{NS}_http_request_duration_seconds", "Time from the first middleware to the built response",
                    ["route", "method"], buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10))
CHARGES = Counter(f"{NS}_charges_total", "Requests settled by the charging service, by what paid (`pool`: "
                  "free_allowance, free_with_key, l402, balance, credits, a plan's pool)", ["pool"])
CHARGED_SATS = Counter(f"{NS}_charged_sats_total", "Sats charged, by what paid", ["pool"])
REFUNDS = Counter(f"{NS}_refunds_total", "Paid charges given back because their request failed after paying: a "
                  "debit refunded (`balance`) or an L402 token made spendable again (`l402`)", ["pool"])
PAYMENT_REQUIRED = Counter(f"{NS}_payment_required_total", "402 answers: nothing paid for the item asked",
                           ["kind"])
DELIVERY_ATTEMPTS = Counter(f"{NS}_webhook_delivery_attempts_total", "Webhook and alert delivery attempts, by the "
                            "delivery's status after the attempt (pending: to be retried)", ["status"])
L402_SPENT = Counter(f"{NS}_l402_tokens_spent_total", "L402 tokens redeemed (each pays for one request)")


def serve_role_metrics(port: int, host: str, extra=None) -> None:
    """A role without the API (worker, pipelines) serves its processes' counts, and `extra` collectors, on its own
    port: prometheus-client's exposition server, in a thread of the role's supervisor."""
    from prometheus_client import CollectorRegistry, multiprocess, start_http_server

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    for collector in extra or ():
        registry.register(collector)
    start_http_server(port, addr=host, registry=registry)


def fresh_multiprocess_dir(home: Path, role: str) -> None:
    """Point this process and the children it starts at an empty folder of metric files for `role`: files left by
    an earlier run would be added to this one's counts."""
    folder = (Path(home) / "prometheus" / role).resolve()
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    os.environ[MULTIPROC_ENV] = str(folder)
