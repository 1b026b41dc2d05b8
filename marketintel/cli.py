"""The `marketintel` console script."""
from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

console = Console(stderr=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="marketintel", description="Market intelligence service for AI agents")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("up", help="run the whole service (Redis, first materialization, API, worker, Dagster)")
    sub.add_parser("migrate", help="bring the ledger schema up to date")
    for name, text in (("api", "the API (gunicorn)"), ("worker", "the RQ workers and the delivery sweeper"),
                       ("pipelines", "Dagster's daemon and UI (the warehouse's one writer)")):
        sub.add_parser(name, help=f"{text} alone, against an external Redis and ledger (after `migrate`)")
    sub.add_parser("materialize", help="run one full materialization with a progress bar")
    sources = sub.add_parser("sources", help="the live sources, the series and modules they cover, the keys to add")
    sources.add_argument("--json", action="store_true", help="the whole report as JSON")
    tier = sub.add_parser("set-tier", help="give an agent a tier (operator); the API sees it on the next request")
    tier.add_argument("agent_id")
    tier.add_argument("tier", choices=["free", "premium", "institutional"])
    tier.add_argument("--until", type=datetime.fromisoformat, help="when the tier ends (ISO 8601, UTC); default never")
    predictions = sub.add_parser("predictions", help="the prediction record").add_subparsers(
        dest="predictions_command", required=True)
    check = predictions.add_parser("verify", help="recompute the prediction chain and check its signed heads")
    check.add_argument("--url", help="verify a running service's public export (default: the local SQL store)")
    check.add_argument("--api-key", help="a key of that service (the export needs one; registering is free)")
    check.add_argument("--origin", choices=["live", "backtest"], default="live")
    check.add_argument("--key-id", help="the signing key id you expect (pins the key the server publishes)")
    grade = predictions.add_parser("score", help="recompute the record's accuracy per kind from the chain")
    grade.add_argument("--url", help="score a running service's public export (default: the local SQL store)")
    grade.add_argument("--api-key", help="a key of that service (the export needs one; registering is free)")
    grade.add_argument("--origin", choices=["live", "backtest"], default="live")
    grade.add_argument("--from", dest="start", type=date.fromisoformat, help="first issue day scored")
    grade.add_argument("--to", dest="end", type=date.fromisoformat, help="last issue day scored")
    grade.add_argument("--json", action="store_true", help="the whole report as JSON")
    replay = sub.add_parser("backtest", help="replay history through the prediction code into the back-test chain")
    replay.add_argument("--from", dest="start", type=date.fromisoformat, required=True, help="first issue day")
    replay.add_argument("--to", dest="end", type=date.fromisoformat, required=True, help="last market day")
    replay.add_argument("--history", type=Path, help="a folder of date,value CSVs (default: the warehouse)")
    regime = sub.add_parser("regime", help="the regime classifier").add_subparsers(dest="regime_command",
                                                                                 required=True)
    card = regime.add_parser("score", help="what followed each label, and the reaction lag on documented shocks")
    card.add_argument("--history", type=Path, help="label a folder of date,value CSVs afresh (default: the "
                                                   "warehouse's stored labels)")
    card.add_argument("--json", action="store_true", help="the whole scorecard as JSON")
    history = sub.add_parser("history", help="the stored module history").add_subparsers(dest="history_command",
                                                                                        required=True)
    fill = history.add_parser("backfill", help="materialize `module_history` over a range of days, as one run")
    fill.add_argument("--from", dest="start", type=date.fromisoformat, required=True, help="first day")
    fill.add_argument("--to", dest="end", type=date.fromisoformat, required=True, help="last day")
    dev = sub.add_parser("dev", help="development helpers").add_subparsers(dest="dev_command", required=True)
    pay = dev.add_parser("pay", help="settle an invoice of the dev Lightning backend; prints the preimage")
    pay.add_argument("bolt11")
    args = parser.parse_args(argv)
    if args.command == "up":
        return up()
    if args.command == "migrate":
        return migrate()
    if args.command in ROLES:
        from marketintel.roles import run_role
        return run_role(args.command)
    if args.command == "materialize":
        return materialize()
    if args.command == "sources":
        from marketintel.settings import get_settings
        from marketintel.sources_report import show
        return show(get_settings(), Console(), args.json)  # a report on stdout, for scripts too
    if args.command == "set-tier":
        return set_tier(args.agent_id, args.tier, args.until)
    if args.command == "backtest":
        return backtest(args.start, args.end, args.history)
    if args.command == "predictions" and args.predictions_command == "score":
        return score_predictions(args)
    if args.command == "regime":
        from marketintel.regime_score import run
        from marketintel.settings import get_settings
        return run(get_settings(), args.history, args.json)
    if args.command == "history":
        return backfill_history(args.start, args.end)
    if args.command == "predictions":
        return verify_predictions(args.url, args.api_key, args.origin, args.key_id)
    return dev_pay(args.bolt11)


def backtest(start: date, end: date, history: Path | None) -> int:
    from marketintel.backtest import run
    from marketintel.settings import get_settings

    if end < start:
        console.print("[red]--to is before --from[/red]")
        return 2
    run(get_settings(), start, end, history, say=console.print)
    return 0


def migrate() -> int:
    from marketintel.settings import get_settings
    from warehouse.ledger.db import migrate as run_migrations

    settings = get_settings()
    settings.home.mkdir(parents=True, exist_ok=True)
    run_migrations(settings.sqlalchemy_url)
    return 0


def materialize() -> int:
    from marketintel.settings import get_settings
    from pipelines.instance import ensure_dagster_home
    from pipelines.materialize import materialize_all

    settings = get_settings()
    os.environ["DAGSTER_HOME"] = str(ensure_dagster_home(settings).resolve())
    with Progress(TextColumn("[bold]materializing"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.description}"), TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task("", total=None)

        def on_progress(done: int, total: int, step: str) -> None:
            progress.update(task, completed=done, total=total, description=step)

        result = materialize_all(settings, on_progress=on_progress)
    console.print(f"materialization: {result}")
    return 0 if result.get("success", True) else 1


def backfill_history(start: date, end: date) -> int:
    from marketintel.settings import get_settings
    from pipelines.instance import ensure_dagster_home
    from pipelines.materialize import backfill_history as run

    settings = get_settings()
    os.environ["DAGSTER_HOME"] = str(ensure_dagster_home(settings).resolve())
    with console.status(f"materializing module_history {start}..{end}"):
        result = run(settings, start.isoformat(), end.isoformat())
    console.print(f"history backfill: {result}")
    return 0 if result["success"] else 1


def set_tier(agent_id: str, tier: str, until: datetime | None) -> int:
    import redis

    from marketintel.operator import set_tier as apply
    from marketintel.settings import get_settings
    from warehouse.ledger import make_engine

    settings = get_settings()
    until = until.replace(tzinfo=UTC) if until is not None and until.tzinfo is None else until
    try:
        apply(make_engine(settings.sqlalchemy_url), redis.Redis.from_url(settings.effective_redis_url), agent_id,
              tier, until)
    except LookupError as exc:
        console.print(f"[red]{exc}")
        return 1
    console.print(f"{agent_id}: {tier}" + (f" until {until.isoformat()}" if until else ""))
    return 0


def verify_predictions(url: str | None, api_key: str | None, origin: str, key_id: str | None) -> int:
    """Exit 0 when the chain verifies, 1 naming the first record or head that does not, 2 when it cannot run."""
    from marketintel.settings import get_settings
    from marketintel.verify import VerifyError, verify_local, verify_remote

    try:
        result, used = verify_remote(url, origin, api_key, key_id) if url else verify_local(get_settings(), origin)
    except VerifyError as exc:
        console.print(f"[red]cannot verify: {exc}")
        return 2
    print(f"{result} (key {used})" if result.ok else f"FAILED {result}")
    return 0 if result.ok else 1


def score_predictions(args) -> int:
    """Print the accuracy of the record (exit 2 when it cannot be read)."""
    import orjson

    from marketintel.predictions_score import lines, records_of, scored
    from marketintel.settings import get_settings
    from marketintel.verify import VerifyError

    try:
        records = records_of(get_settings(), args.url, args.api_key, args.origin)
    except VerifyError as exc:
        console.print(f"[red]cannot read the record: {exc}")
        return 2
    report = scored(records, args.start and args.start.isoformat(), args.end and args.end.isoformat())
    print(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode() if args.json else "\n".join(lines(report)))
    return 0


def dev_pay(bolt11: str) -> int:
    from marketintel.lightning.dev import DevLightning
    from marketintel.lightning.factory import make_backend
    from marketintel.settings import get_settings

    backend = make_backend(get_settings())
    if not isinstance(backend, DevLightning):
        console.print("[red]`dev pay` settles invoices of the built-in dev backend only (MI_LIGHTNING_BACKEND=dev).")
        return 2
    try:
        preimage = backend.pay(bolt11.strip())
    except Exception as exc:  # noqa: BLE001  (a CLI reports, it does not trace)
        console.print(f"[red]payment failed: {exc}")
        return 1
    console.print("paid; preimage:")
    print(preimage)
    return 0


def up() -> int:
    from marketintel.logs import configure
    from marketintel.settings import get_settings
    from marketintel.stop_request import StopRequest

    configure("up", get_settings().log_format)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    # Before anything starts: from here on a signal is a recorded stop request, never lost, and nothing
    # starts after it (see marketintel/stop_request.py).
    with StopRequest() as stop:
        return start_and_run(stop)


def start_and_run(stop) -> int:
    """Redis, the migration, the first materialization, then the supervised processes until a stop is asked
    for; whatever started is stopped on the way out, also when the stop came during start-up."""
    redis_server = None
    supervisor = None
    try:
        with stop.interruptible():
            from marketintel.prometheus import fresh_multiprocess_dir
            from marketintel.redis_server import EmbeddedRedis
            from marketintel.settings import get_settings
            from marketintel.supervisor import Supervisor
            from pipelines.instance import ensure_dagster_home

            # Every process must agree on the market clock and on the Redis server: fix both in the environment.
            os.environ.setdefault("MI_CLOCK_ANCHOR", str(time.time()))
            os.environ["MI_HOME"] = str(Path(os.environ.get("MI_HOME", "./var")).resolve())
            get_settings.cache_clear()
            settings = get_settings()
            settings.home.mkdir(parents=True, exist_ok=True)
        if settings.redis_url is None:
            redis_server = EmbeddedRedis(settings.redis_port, settings.home / "redis")
            redis_server.start()
            os.environ["MI_REDIS_URL"] = redis_server.url
        with stop.interruptible():
            get_settings.cache_clear()
            settings = get_settings()
            os.environ["DAGSTER_HOME"] = str(ensure_dagster_home(settings).resolve())
            # `auto` is decided once, here: every child process then uses the same source (and says so).
            os.environ["MI_SOURCE"] = banner(settings)
            get_settings.cache_clear()
            settings = get_settings()
            migrate()
            from pipelines.orphaned_runs import release_orphaned_runs

            release_orphaned_runs()  # runs a killed `up` left "in progress" would hold the queue for ever
        if first_materialization(stop) != 0:
            console.print("[red]the first materialization failed; see the Dagster run log")
            return 1
        fresh_multiprocess_dir(settings.home, "up")  # every process's Prometheus counts, added up by /metrics
        supervisor = Supervisor(children(settings), env=dict(os.environ))
        supervisor.start(stop)
        console.print(f"[green]ready:[/] API http://{settings.api_host}:{settings.api_port}  "
                      f"Dagster UI http://127.0.0.1:{settings.dagster_port}  (Ctrl-C stops everything)")
        return supervisor.wait(stop)
    except KeyboardInterrupt:
        console.print("stopped before start-up finished")
        return 130
    finally:  # not interruptible: a second signal only records itself again
        if supervisor is not None:
            supervisor.stop()
        if redis_server is not None:
            redis_server.stop()


def first_materialization(stop) -> int:
    """`marketintel materialize` in a process group of its own, stopped with `up`. Not in this process: while a
    run executes in-process, Dagster takes SIGTERM over and drops an interrupt it captured once the run ends,
    so a SIGTERM sent to `up` then would be lost and start-up would carry on."""
    from marketintel.supervisor import Child, Supervisor

    # a short grace: Dagster stops a run at the next step boundary; past that, the run is killed
    runner = Supervisor([Child("first materialization", [sys.executable, "-m", "marketintel.cli", "materialize"])],
                        env=dict(os.environ), grace_s=5.0)
    try:
        runner.start(stop)
        return stop.wait(runner.children[0].process)
    finally:
        runner.stop()  # nothing left to stop after a normal exit; after an interrupt, the run and its group


# How long an idle keep-alive connection stays open. Longer than clients keep theirs (httpx 5 s, most pools
# less than a minute): a client then closes an idle connection before the server does, instead of sending a
# request on one the server is closing (gunicorn's default, 2 s, made that race: "server disconnected").
KEEP_ALIVE_S = 75


ROLES = ("api", "worker", "pipelines")  # what `up` runs on one machine; `marketintel <role>` runs one of them


def children(settings, roles: tuple[str, ...] = ROLES) -> list:
    """The processes of `roles`: the API (gunicorn), the workers (RQ workers and the delivery sweeper, of which
    several may run: the outbox hands each due row to one of them) and the pipelines (Dagster's daemon and UI)."""
    from marketintel.supervisor import Child

    bin_dir = Path(sys.executable).parent
    python = sys.executable
    out = []
    if "api" in roles:
        out.append(Child("api", [python, "-m", "gunicorn", "api.asgi:app", "-k", "uvicorn_worker.UvicornWorker",
                                 "-w", str(settings.api_workers), "-b", f"{settings.api_host}:{settings.api_port}",
                                 "--no-control-socket", "--graceful-timeout", "5", "--timeout", "60",
                                 "--keep-alive", str(KEEP_ALIVE_S), "-c", "python:api.gunicorn_hooks"]))
    if "worker" in roles:
        # RQ workers: ask and content jobs, webhook and alert deliveries; one job at a time each
        out += [Child("worker" if n == 0 else f"worker-{n + 1}", [python, "-m", "jobs.worker"])
                for n in range(settings.rq_workers)]
        out.append(Child("webhook-sweeper", [python, "-m", "jobs.webhooks"]))  # due deliveries, dead jobs: every 10 s
    if "pipelines" in roles:
        # below the API's CPU priority (MI_PIPELINES_NICE): a refresh run, the daemon's child, never starves serving
        out += [Child("dagster-daemon", [str(bin_dir / "dagster-daemon"), "run", "-m", "pipelines.definitions"],
                      settings.pipelines_nice),
                Child("dagster-webserver", [str(bin_dir / "dagster-webserver"), "-h", settings.dagster_host,
                                            "-p", str(settings.dagster_port), "-m", "pipelines.definitions"],
                      settings.pipelines_nice)]
    return out


def banner(settings) -> str:
    """Print the start-up banner; returns the data source in use (`auto` resolved)."""
    from intel.providers.factory import make_provider, resolve_source

    _, reason = resolve_source(settings)
    provider = make_provider(settings)
    kind = "[bold yellow]SIMULATED data[/]" if provider.simulated else f"[bold]{provider.name}[/] data"
    console.rule("marketintel")
    if settings.source == "auto" and provider.simulated:
        console.print(f"[bold yellow on red] {reason} [/]")
    console.print(f"data source: {provider.name} ({kind}); {reason}; home: {settings.home}")
    if provider.name == "live":
        from marketintel.sources_report import report
        console.print(report(settings)["summary"])
    console.print(f"ledger: {settings.sqlalchemy_url.split('@')[-1]}; redis: {settings.effective_redis_url}")
    console.rule()
    return provider.name


if __name__ == "__main__":
    sys.exit(main())
