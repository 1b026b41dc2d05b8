"""One settings object, read once from `MI_*` environment variables."""
from __future__ import annotations

from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MI_", extra="ignore")

    home: Path = Field(Path("./var"), description="Folder for all local state")
    api_host: str = Field("127.0.0.1", description="Address the API listens on")
    api_port: int = Field(8000, description="Port the API listens on")
    api_workers: int = Field(2, description="gunicorn workers of the API")
    rq_workers: int = Field(2, ge=1, description="RQ worker processes `up` starts (ask and content jobs, webhook "
                            "and alert deliveries; one job at a time each)")
    dagster_port: int = Field(3000, description="Port of the Dagster UI")
    dagster_host: str = Field("127.0.0.1", description="Address the Dagster UI listens on (0.0.0.0 in a container, "
                              "with its port published to the host's loopback only)")
    database_url: str | None = Field(None, description="The ledger's SQLAlchemy URL, e.g. "
                                     "`postgresql+psycopg://user@host/db`; unset: SQLite `MI_HOME/ledger.sqlite` (WAL)")
    dagster_database_url: str | None = Field(None, description="PostgreSQL URL for Dagster's runs, event logs and "
                                             "schedules; unset: with a PostgreSQL ledger, its database in the schema "
                                             "`dagster`; with SQLite, Dagster's SQLite files under MI_HOME/dagster")
    dagster_telemetry: bool = Field(False, description="Let Dagster send its anonymous usage telemetry (off unless "
                                    "the operator opts in)")
    dagster_instance_extra: Path | None = Field(None, description="A YAML file of Dagster instance settings added "
                                                "to the generated dagster.yaml, e.g. a Docker or Kubernetes "
                                                "`run_launcher` (docs/operations.md); it may not repeat a key the file "
                                                "sets")
    redis_url: str | None = Field(None, description="An external Redis instead of the embedded server")
    redis_port: int = Field(6390, description="Port of the embedded Redis server")
    # The API's own dependencies: how long a call to Redis or the SQL ledger may take before the request answers
    # 503 `dependency_unavailable` (api/errors.py), and how many connections each process keeps. The defaults are
    # argued in docs/timeouts-and-pools.md; together they keep a client's wait under FAULT_BOUND_S there (2 s).
    redis_socket_timeout_s: float = Field(0.5, gt=0, description="Longest wait for one Redis reply")
    redis_connect_timeout_s: float = Field(2.0, gt=0, description="Longest wait to open a Redis connection")
    redis_retries: int = Field(1, ge=0, description="Retries of a Redis call whose connection was lost (redis-py's "
                               "Retry, exponential backoff with jitter); a timeout is not retried")
    redis_backoff_base_s: float = Field(0.05, ge=0, description="First Redis retry's backoff")
    redis_backoff_cap_s: float = Field(0.2, ge=0, description="Longest Redis retry backoff")
    redis_max_connections: int = Field(200, gt=0, description="Redis connections per client pool per process; one "
                                       "more is a 503, not a socket more")
    redis_health_check_interval_s: float = Field(30.0, ge=0, description="A Redis connection idle this long is "
                                                 "PINGed before use (0: never)")
    db_pool_size: int = Field(10, gt=0, description="SQL connections kept open per engine (PostgreSQL)")
    db_max_overflow: int = Field(20, ge=0, description="SQL connections opened beyond the pool under a burst")
    db_pool_timeout_s: float = Field(2.0, gt=0, description="Longest wait for a free SQL connection")
    db_connect_timeout_s: int = Field(2, ge=2, description="Longest wait to open a PostgreSQL connection (libpq's "
                                      "minimum is 2 s)")
    db_statement_timeout_ms: int = Field(5000, ge=0, description="PostgreSQL statement_timeout of the API's "
                                         "connections (0: none); workers and migrations have none")
    health_check_timeout_s: float = Field(1.0, gt=0, description="Longest wait of each /health check")
    dependency_retry_after_s: int = Field(2, gt=0, description="Retry-After of a 503 dependency_unavailable")
    source: Literal["auto", "live", "sim", "replay"] = Field(
        "auto", description="`auto`: `live` when any live source answers a short probe at start-up, else `sim` "
                            "(said in the banner); `live`: the publishers' feeds, and the keyed services whose keys "
                            "are set; `sim`: a seeded simulation, `simulated: true` everywhere; `replay`: the CSVs "
                            "of `MI_REPLAY_DIR` played on the market clock")
    replay_dir: Path = Field(Path("../shared/data/history"), description="Folder of `date,value` CSVs for `replay`")
    replay_start: date | None = Field(None, description="Replay clock start; default the day after the data ends")
    clock_speed: float = Field(1.0, description="Market seconds per wall second for sim/replay")
    clock_anchor: float | None = Field(None, description="Wall time (epoch s) the clock started; set by `up`")
    sim_seed: int = Field(7, description="Seed of the simulation")
    sim_years: int = Field(16, description="Years of simulated history the first ingest loads")
    # Live sources. Base URLs are settings so tests point them at a local protocol server; each source's
    # format is in intel/providers/live/<source>.py.
    live_fred_api_url: str = Field("https://api.stlouisfed.org/fred", description="The FRED API")
    live_treasury_url: str = Field(
        "https://home.treasury.gov/resource-center/data-chart-center/interest-rates/daily-treasury-rates.csv",
        description="The Treasury's daily par (and real) yield curves")
    live_ecb_url: str = Field("https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip",
                              description="The ECB's euro reference rates, full history")
    live_coinbase_url: str = Field("https://api.exchange.coinbase.com", description="Coinbase Exchange candles")
    live_stooq_url: str = Field("https://stooq.com/q/d/l/", description="Stooq's keyless daily CSV")
    live_cboe_url: str = Field("https://cdn.cboe.com/api/global/us_indices/daily_prices",
                               description="Cboe's daily index histories (VIX, VIX3M)")
    live_frb_url: str = Field("https://www.federalreserve.gov/datadownload/Output.aspx",
                              description="The Federal Reserve Board's Data Download Program")
    live_nyfed_url: str = Field("https://markets.newyorkfed.org", description="The New York Fed's Markets Data API")
    live_freddiemac_url: str = Field("https://www.freddiemac.com/pmms/docs/PMMS_history.csv",
                                     description="Freddie Mac's mortgage rate survey (PMMS), whole history")
    live_bls_url: str = Field("https://api.bls.gov/publicAPI/v2/timeseries/data/",
                              description="The BLS Public Data API, version 2")
    live_gold_prices_url: str = Field("https://raw.githubusercontent.com/datasets/gold-prices/main/data/monthly.csv",
                                      description="The World Bank's monthly gold average (datasets/gold-prices)")
    live_timeout_s: float = Field(10.0, description="Per-request timeout of the live sources")
    live_retries: int = Field(2, description="Retries after a 429, 5xx, timeout or connection error, the delay "
                                 "doubling from MI_LIVE_BACKOFF_S (or the answer's Retry-After when longer)")
    live_backoff_s: float = Field(0.5, description="First retry delay; doubles per retry")
    live_breaker_failures: int = Field(3, description="Consecutive failures that open a source's breaker")
    live_breaker_reset_s: float = Field(300.0, description="Seconds an open breaker waits before one trial")
    live_request_budget: int = Field(600, description="Requests per source per hour (per process)")
    live_probe_timeout_s: float = Field(2.0, description="Timeout of the `auto` start-up probe")
    live_fred_api_requests_per_minute: int = Field(
        120, ge=1, description="Pace of FRED API requests (FRED's published limit is 120 a minute per key), kept by "
                         "waiting before a request, not by a 429")
    live_fred_api_pace_window_s: int = Field(60, ge=1, description="The window of that pace, in seconds")
    fred_api_key: SecretStr | None = Field(
        None, description="FRED API key (free, https://fred.stlouisfed.org/docs/api/api_key.html): every FRED series, "
                          "and the fallback of the publishers' feeds; sent only as FRED requires (`api_key=` in the "
                          "query), redacted from logs and errors")
    bls_api_key: SecretStr | None = Field(
        None, description="BLS API registration key (free): lifts the BLS API's keyless daily limit (25 "
                          "queries)")
    # Optional keyed daily-bar providers, tried before Stooq (Tiingo, then Alpha Vantage) only when keyed.
    tiingo_api_key: SecretStr | None = Field(
        None, description="Tiingo API token: daily bars of plain US tickers come from Tiingo (adjusted prices) "
                          "first; sent in the Authorization header, never logged")
    alphavantage_api_key: SecretStr | None = Field(
        None, description="Alpha Vantage API key: tried for daily bars after Tiingo and before Stooq (unadjusted "
                          "prices; a Note, Information or Error Message answer counts as a failure); redacted "
                          "from logs and errors")
    live_tiingo_url: str = Field("https://api.tiingo.com", description="Tiingo's API")
    live_alphavantage_url: str = Field("https://www.alphavantage.co", description="Alpha Vantage's API")
    lightning_backend: Literal["dev", "lnd", "phoenixd", "lnbits"] = Field(
        "dev", description="`dev`: the built-in node, issuing real signed BOLT11 invoices; `lnd` (LND REST), "
                           "`phoenixd` (its HTTP API) or `lnbits` (an LNbits wallet): a real node")
    lightning_network: Literal["bcrt", "tb", "bc"] = Field("bcrt", description="BOLT11 currency prefix of dev "
                                                           "invoices")
    lightning_timeout_s: float = Field(10.0, description="Per-request timeout of the Lightning node's API; "
                                       "lookups are retried twice after a connection failure, invoice creation "
                                       "never")
    lnd_url: str = Field("https://127.0.0.1:8080", description="LND REST address")
    lnd_macaroon_path: Path | None = Field(None, description="LND macaroon file (`invoice.macaroon` is enough); "
                                          "sent in `Grpc-Metadata-macaroon`, never logged")
    lnd_macaroon: SecretStr | None = Field(None, description="LND macaroon as hex, instead of lnd_macaroon_path")
    lnd_tls_cert_path: Path | None = Field(None, description="LND tls.cert, trusted for lnd_url; unset: system CAs")
    phoenixd_url: str = Field("http://127.0.0.1:9740", description="phoenixd HTTP API address")
    phoenixd_password: SecretStr | None = Field(None, description="phoenixd `http-password` (phoenix.conf; the "
                                              "limited-access one is enough)")
    lnbits_url: str = Field("http://127.0.0.1:5000", description="LNbits address")
    lnbits_api_key: SecretStr | None = Field(None, description="LNbits wallet invoice/read key (never the admin key)")
    invoice_expiry_s: int = Field(3600, description="Invoice lifetime, in seconds")
    l402_catalog_price_sats: int = Field(10, description="Price of one full-catalog request paid with L402 (free "
                                         "with a key)")
    # about a premium day's worth of standard queries; its sats follow the published BTC/USD (charging/prices.py)
    daytrade_pass_usd: float = Field(5.0, gt=0, description="USD price of the day-trade journal's 24-hour L402 "
                              "pass (in sats at the published BTC/USD)")
    pulse_rate_per_minute: int = Field(10, description="Pulse and catalog preview requests per minute per client "
                                       "address")
    free_queries_per_module_per_day: int = Field(1, description="Free queries of each module per day (per agent, "
                                                 "or per client address without a key)")
    consensus_min_agents: int = Field(3, ge=3, description="Distinct callers a consensus figure needs before it is "
                                      "shown (at least 3)")
    refresh_minutes: int = Field(2, description="Period of the refresh schedule (ingest, modules, pulse, publish)")
    pipelines_nice: int = Field(10, ge=0, le=19, description="Niceness added to the pipelines role (Dagster's daemon, "
                                "its runs, its UI): serving keeps the CPU when both want it")
    log_format: Literal["text", "json"] = Field("text", description="Log lines as plain text, or one JSON object a "
                                                "line (role, request and agent ids, secrets masked) for a log pipeline")
    metrics_host: str = Field("127.0.0.1", description="Address the worker and pipelines roles serve their "
                              "Prometheus metrics on (the API serves /metrics itself)")
    metrics_port: int = Field(9464, description="Port the worker and pipelines roles serve their Prometheus metrics on")
    metrics_token: SecretStr | None = Field(None, description="Bearer token a Prometheus scraper sends to /metrics; "
                                            "unset: /metrics answers loopback clients only")
    history_start: date = Field(date(2005, 1, 3), description="First day of the module history's daily partitions "
                                "(`module_history`); a day before it is computed on demand, not stored")
    history_workers: int = Field(2, ge=1, description="Processes a history run of many days computes them in")
    history_compute_limit: int = Field(20, ge=0, description="Steps of a history query computed on demand when "
                                       "their days are not stored yet; beyond it the query is refused, naming the "
                                       "backfill that would serve it")
    console_session_ttl_s: int = Field(43_200, ge=60, description="How long a console sign-in lasts, in seconds "
                                       "(rotating the key ends it at once)")
    console_sign_in_rate: str = Field("10/minute", description="Console sign-in and register attempts per client "
                                      "address")
    trust_forwarded_for: bool = Field(False, description="Take the client address from X-Forwarded-For (behind "
                                      "one trusted proxy)")
    # Paid tiers, bought over Lightning (warehouse/ledger/tiers.py has the rules).
    tier_premium_price_sats: int = Field(20_000, gt=0, description="Price of one premium term")
    tier_premium_days: int = Field(30, gt=0, description="Length of one premium term")
    tier_institutional_price_sats: int = Field(100_000, gt=0, description="Price of one institutional term")
    tier_institutional_days: int = Field(30, gt=0, description="Length of one institutional term")
    # Plans paid from the balance (warehouse/ledger/plans.py); JSON objects in the environment.
    commitment_plans: dict[str, dict[str, int]] = Field(
        default_factory=lambda: {
            "starter": {"credits_sats": 10_000, "discount_percent": 20, "term_days": 90},
            "growth": {"credits_sats": 50_000, "discount_percent": 30, "term_days": 90},
            "scale": {"credits_sats": 200_000, "discount_percent": 40, "term_days": 180}},
        description="name -> {credits_sats, discount_percent (20-40), term_days}")
    subscription_plans: dict[str, dict[str, int]] = Field(
        default_factory=lambda: {
            "basic": {"price_sats": 9_000, "period_days": 30, "allocation_sats": 10_000, "burst_sats": 2_500},
            "pro": {"price_sats": 40_000, "period_days": 30, "allocation_sats": 50_000, "burst_sats": 12_500}},
        description="name -> {price_sats, period_days, allocation_sats, burst_sats}")
    # Per-key moving-window limits on module queries and the batch, by effective tier (`limits` notation).
    # The free budget stays above the module count, so an agent can try every module's free query at once.
    rate_limit_free: str = Field("120/minute", description="Module queries and batches per free agent (or per "
                                 "address without a key)")
    rate_limit_premium: str = Field("600/minute", description="Module queries and batches per premium agent")
    rate_limit_institutional: str = Field("3000/minute", description="Module queries and batches per "
                                          "institutional agent")
    # Webhook deliveries (jobs/webhooks.py, marketintel/ssrf.py).
    webhook_allow_private: bool = Field(
        False, description="Allow http:// callbacks and loopback/private addresses (local tests only); link-local, "
                           "multicast and cloud metadata addresses stay refused")
    webhook_timeout_s: float = Field(10.0, gt=0, description="Per-phase timeout of one webhook POST")
    # The SSE event stream (api/resources/events_stream.py): open connections per agent (or per address without
    # a key) by effective tier, counted in Redis across workers and instances; one more is a 429.
    sse_connections_free: int = Field(2, gt=0, description="Open event streams per free caller")
    sse_connections_premium: int = Field(10, gt=0, description="Open event streams per premium agent")
    sse_connections_institutional: int = Field(50, gt=0, description="Open event streams per institutional agent")
    sse_heartbeat_s: float = Field(15.0, gt=0, description="Seconds between `: ping` comments on an idle stream")
    sse_retry_ms: int = Field(3000, gt=0, description="The `retry:` a stream tells clients to wait before reconnecting")
    # Synthesis engine (marketintel/llm.py, issue 15): an OpenAI-compatible chat-completions endpoint writes
    # ask answers when the base URL and model are set; otherwise the built-in composer does (no network).
    llm_base_url: str | None = Field(None, description="OpenAI-compatible API base, e.g. https://api.openai.com/v1")
    llm_model: str | None = Field(None, description="Chat model name at llm_base_url")
    llm_api_key: SecretStr | None = Field(None, description="API key for llm_base_url (local servers may need none)")
    llm_timeout_s: float = Field(30.0, gt=0, description="Per-request timeout of the chat-completions call")
    llm_max_retries: int = Field(1, ge=0, description="Retries after a timeout, connection error, 429 or "
                                 "5xx; a failure falls back to the built-in composer")

    # Content charts (marketintel/chart_files.py): PNG files under MI_HOME/charts/newsletter.
    chart_retention_hours: float = Field(72.0, gt=0, description="Chart files older than this are pruned")

    # Synthesis on RQ: ask and content (api/synthesis_queries.py, jobs/synthesis.py). How long a POST waits
    # for its job before answering 202 with a request id to poll, how long results are kept, and the RQ job limits.
    ask_window_quick_s: float = Field(25.0, ge=0, description="Wait for a quick ask before answering 202")
    ask_window_standard_s: float = Field(40.0, ge=0, description="Wait for a standard ask before answering 202")
    ask_window_deep_s: float = Field(55.0, ge=0, description="Wait for a deep ask before answering 202")
    content_window_s: float = Field(55.0, ge=0, description="Wait for a content piece before answering 202")
    synthesis_result_ttl_s: int = Field(86_400, gt=0, description="How long a synthesis result (and an "
                                        "Idempotency-Key) is kept for its owner to read")
    synthesis_job_timeout_s: int = Field(300, gt=0, description="RQ job timeout of one synthesis attempt")
    synthesis_retries: int = Field(1, ge=0, description="RQ retries of a synthesis job that failed or was lost")
    synthesis_lease_s: float = Field(15.0, gt=0, description="A running job renews its lease every third of this; a "
                                     "lease that lapses (its worker was killed) fails and refunds the job at the "
                                     "next poll, rather than after RQ's own 90 s heartbeat")

    @property
    def sqlalchemy_url(self) -> str:
        return self.database_url or f"sqlite:///{(self.home / 'ledger.sqlite').resolve()}"

    @property
    def warehouse_path(self) -> Path:
        return self.home / "warehouse" / "warehouse.duckdb"

    @property
    def analyst_path(self) -> Path:
        return self.home / "warehouse" / "analyst.duckdb"

    @property
    def history_path(self) -> Path:
        return self.home / "warehouse" / "history.duckdb"

    @property
    def history_copy_path(self) -> Path:
        """The published copy of the history, which the API and analysts read."""
        return self.home / "warehouse" / "history-analyst.duckdb"

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster"

    @property
    def embedded_redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    @property
    def effective_redis_url(self) -> str:
        return self.redis_url or self.embedded_redis_url


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
