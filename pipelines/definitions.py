"""The one `Definitions`: assets, resources from Settings, jobs, the refresh schedule.

Every job uses the in-process executor (a subprocess per step would cost over a second of imports per
module) and carries the warehouse tag the instance's run queue limits to one run at a time."""

from dagster import (
    AssetSelection,
    DagsterRunStatus,
    DefaultScheduleStatus,
    DefaultSensorStatus,
    Definitions,
    RunRequest,
    RunsFilter,
    ScheduleEvaluationContext,
    SkipReason,
    define_asset_job,
    in_process_executor,
    run_status_sensor,
    schedule,
)

from assets.chart_series import chart_series
from assets.checks import observations_quality
from assets.daytrade import daytrade_journal
from assets.history import module_history, settled_day
from assets.ingest import observations
from assets.modules import module_assets
from assets.parallels import parallels
from assets.predictions import prediction_resolutions, predictions
from assets.publish import build_publish_asset
from assets.pulse import pulse
from assets.regime import regime
from assets.resources import (
    HistoryResource,
    MarketResource,
    RecordsResource,
    ServingCacheResource,
    WarehouseResource,
)
from assets.scanner import scanner
from assets.signals import trading_signals_asset
from marketintel.settings import Settings, get_settings
from pipelines.instance import HISTORY_TAGS, WAREHOUSE_TAGS

_PENDING = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING,
            DagsterRunStatus.STARTED]


def refresh_cron(minutes: int) -> str:
    if minutes < 60:
        return f"*/{max(1, minutes)} * * * *"
    return f"0 */{max(1, minutes // 60)} * * *"


def build_defs(settings: Settings) -> Definitions:
    foresight = (regime, parallels, predictions, prediction_resolutions)
    products = (*foresight, chart_series, trading_signals_asset)  # the derived products publish puts in Redis
    assets = [observations, *module_assets(), pulse, *products, build_publish_asset(products), scanner,
              daytrade_journal, module_history]  # the journal is written to SQL (a signed chain), not published
    # The data-quality checks run in their own job after each ingest or refresh (quality_sensor), so the
    # refresh steps (and `materialize_all`'s progress over them) stay one per asset, and a failed check can
    # never hold back publishing.
    quality = AssetSelection.checks(observations_quality)
    ingest = AssetSelection.assets(observations) - quality
    history = AssetSelection.assets(module_history)  # partitioned: its own job and schedule
    everything = AssetSelection.all() - quality - history

    ingest_job = define_asset_job("ingest_job", selection=ingest, executor_def=in_process_executor,
                                  tags=WAREHOUSE_TAGS, description="Fetch new observations.")
    modules_job = define_asset_job("modules_job", selection=everything - ingest,
                                   executor_def=in_process_executor, tags=WAREHOUSE_TAGS,
                                   description="Modules, pulse and publish from the stored observations.")
    refresh_job = define_asset_job("refresh_job", selection=everything, executor_def=in_process_executor,
                                   tags=WAREHOUSE_TAGS, description="Ingest, modules, pulse, publish.")
    quality_job = define_asset_job("quality_job", selection=quality,
                                   executor_def=in_process_executor, tags=WAREHOUSE_TAGS,
                                   description="Stale series, gaps, impossible values, outliers.")
    history_job = define_asset_job("history_job", selection=history,
                                   executor_def=in_process_executor, tags=HISTORY_TAGS,
                                   description="Modules as of the start of market days, into history.duckdb.")

    @schedule(job=refresh_job, cron_schedule=refresh_cron(settings.refresh_minutes),
              default_status=DefaultScheduleStatus.RUNNING)
    def refresh_schedule(context: ScheduleEvaluationContext):
        # A refresh still queued or running makes the next one redundant: skip instead of piling up.
        busy = context.instance.get_runs_count(RunsFilter(job_name="refresh_job", statuses=_PENDING))
        if busy:
            return SkipReason(f"{busy} refresh run(s) still pending")
        return RunRequest()

    @schedule(job=history_job, cron_schedule="7 * * * *", default_status=DefaultScheduleStatus.RUNNING)
    def history_schedule(context: ScheduleEvaluationContext):
        # Once per market day, when its answer has settled: the run key makes a day's request happen once.
        day = settled_day(MarketResource.from_settings(settings))
        if day < settings.history_start:
            return SkipReason("no market day has settled on the market clock since the history starts")
        key = day.isoformat()
        return RunRequest(run_key=f"history-{key}", partition_key=key)

    @run_status_sensor(run_status=DagsterRunStatus.SUCCESS, monitored_jobs=[ingest_job, refresh_job],
                       request_job=quality_job, default_status=DefaultSensorStatus.RUNNING)
    def quality_sensor(context):
        return RunRequest(run_key=f"quality-after-{context.dagster_run.run_id}")

    return Definitions(
        assets=assets,
        asset_checks=[observations_quality],
        jobs=[ingest_job, modules_job, refresh_job, quality_job, history_job],
        schedules=[refresh_schedule, history_schedule],
        sensors=[quality_sensor],
        resources={
            "warehouse": WarehouseResource(path=str(settings.warehouse_path.resolve()),
                                           analyst_path=str(settings.analyst_path.resolve())),
            "serving": ServingCacheResource(redis_url=settings.effective_redis_url),
            "market": MarketResource.from_settings(settings),
            "ledger": RecordsResource.from_settings(settings),
            "history": HistoryResource.from_settings(settings),
        },
        executor=in_process_executor,
    )


defs = build_defs(get_settings())
