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
    api_host: str = "127.0.0.1"
    api_port: int = 8000
    api_workers: int = 2
    rq_workers: int = Field(2, ge=1, description="RQ worker processes `up` starts (synthesis jobs, deliveries)")
    dagster_port: int = 3000
    database_url: str | None = Field(None, description="SQLAlchemy URL; default SQLite under home")
    redis_url: str | None = Field(None, description="External Redis; default an embedded server")
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
        "auto", description="auto: live when its sources answer at start-up, else sim")
    replay_dir: Path = Path("../shared/data/history")
    replay_start: date | None = Field(None, description="Replay clock start; default the day after the data ends")
    clock_speed: float = Field(1.0, description="Market seconds per wall second for sim/replay")
    clock_anchor: float | None = Field(None, description="Wall time (epoch s) the clock started; set by `up`")
    sim_seed: int = 7
    sim_years: int = 16
    # Live sources. Base URLs are settings so tests point them at a local protocol server.
    live_fred_api_url: str = "https://api.stlouisfed.org/fred"
    live_treasury_url: str = ("https://home.treasury.gov/resource-center/data-chart-center/interest-rates/"
                              "daily-treasury-rates.csv")
    live_ecb_url: str = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip"
    live_coinbase_url: str = "https://api.exchange.coinbase.com"
    live_stooq_url: str = "https://stooq.com/q/d/l/"
    live_cboe_url: str = "https://cdn.cboe.com/api/global/us_indices/daily_prices"
    live_frb_url: str = "https://www.federalreserve.gov/datadownload/Output.aspx"
    live_nyfed_url: str = "https://markets.newyorkfed.org"
    live_freddiemac_url: str = "https://www.freddiemac.com/pmms/docs/PMMS_history.csv"
    live_bls_url: str = "https://api.bls.gov/publicAPI/v2/timeseries/data/"
    live_gold_prices_url: str = Field("https://raw.githubusercontent.com/datasets/gold-prices/main/data/monthly.csv",
                                      description="The World Bank's monthly gold average (datasets/gold-prices)")
    live_timeout_s: float = Field(10.0, description="Per-request timeout of the live sources")
    live_retries: int = Field(2, description="Retries after a 429, 5xx, timeout or connection error")
    live_backoff_s: float = Field(0.5, description="First retry delay; doubles per retry")
    live_breaker_failures: int = Field(3, description="Consecutive failures that open a source's breaker")
    live_breaker_reset_s: float = Field(300.0, description="Seconds an open breaker waits before one trial")
    live_request_budget: int = Field(600, description="Requests per source per hour")
    live_probe_timeout_s: float = Field(2.0, description="Timeout of the `auto` start-up probe")
    live_fred_api_requests_per_minute: int = Field(
        120, ge=1, description="Pace of FRED API requests (FRED's published limit is 120 a minute per key)")
    live_fred_api_pace_window_s: int = Field(60, ge=1, description="The window of that pace, in seconds")
    fred_api_key: SecretStr | None = Field(
        None, description="FRED API key (free, https://fred.stlouisfed.org/docs/api/api_key.html): every FRED series")
    bls_api_key: SecretStr | None = Field(
        None, description="BLS API registration key (free): lifts the keyless daily limit of the BLS API")
    # Optional keyed daily-bar providers, tried before Stooq (Tiingo, then Alpha Vantage) only when keyed.
    tiingo_api_key: SecretStr | None = Field(None, description="Tiingo API token; enables Tiingo daily bars")
    alphavantage_api_key: SecretStr | None = Field(
        None, description="Alpha Vantage API key; enables Alpha Vantage daily bars")
    live_tiingo_url: str = "https://api.tiingo.com"
    live_alphavantage_url: str = "https://www.alphavantage.co"
    lightning_backend: Literal["dev", "lnd", "phoenixd", "lnbits"] = Field(
        "dev", description="dev: the built-in node; lnd, phoenixd, lnbits: a real node over its HTTP API")
    lightning_network: Literal["bcrt", "tb", "bc"] = "bcrt"
    lightning_timeout_s: float = Field(10.0, description="Per-request timeout of the Lightning node's API")
    lnd_url: str = Field("https://127.0.0.1:8080", description="LND REST address")
    lnd_macaroon_path: Path | None = Field(None, description="LND macaroon file (invoice.macaroon is enough)")
    lnd_macaroon: SecretStr | None = Field(None, description="LND macaroon as hex, instead of lnd_macaroon_path")
    lnd_tls_cert_path: Path | None = Field(None, description="LND tls.cert, trusted for lnd_url; unset: system CAs")
    phoenixd_url: str = Field("http://127.0.0.1:9740", description="phoenixd HTTP API address")
    phoenixd_password: SecretStr | None = Field(None, description="phoenixd http-password (phoenix.conf)")
    lnbits_url: str = Field("http://127.0.0.1:5000", description="LNbits address")
    lnbits_api_key: SecretStr | None = Field(None, description="LNbits wallet invoice/read key")
    invoice_expiry_s: int = 3600
    l402_catalog_price_sats: int = Field(10, description="Price of the full catalog paid with L402 (no key)")
    # about a premium day's worth of standard queries; its sats follow the published BTC/USD (charging/prices.py)
    daytrade_pass_usd: float = Field(5.0, gt=0, description="USD price of the day-trade journal's 24-hour L402 pass")
    pulse_rate_per_minute: int = 10
    free_queries_per_module_per_day: int = 1
    consensus_min_agents: int = Field(3, ge=3, description="Consensus hides topics seen from fewer agents")
    refresh_minutes: int = 2
    trust_forwarded_for: bool = Field(False, description="Take the client IP from X-Forwarded-For")
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
    rate_limit_free: str = Field("120/minute", description="Per agent (or per address without a key)")
    rate_limit_premium: str = "600/minute"
    rate_limit_institutional: str = "3000/minute"
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
    llm_max_retries: int = Field(1, ge=0, description="Retries after a timeout, connection error, 429 or 5xx")

    # Content charts (marketintel/chart_files.py): PNG files under MI_HOME/charts/newsletter.
    chart_retention_hours: float = Field(72.0, gt=0, description="Chart files older than this are pruned")

    # Synthesis on RQ: ask, content and unified (api/synthesis_queries.py, jobs/synthesis.py). How long a POST waits
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
