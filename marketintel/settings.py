"""One settings object, read once from `MI_*` environment variables."""
from __future__ import annotations

from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MI_", extra="ignore")

    home: Path = Field(Path("./var"), description="Folder for all local state")
    api_host: str = "127.0.0.1"
    api_port: int = 8000
    api_workers: int = 2
    dagster_port: int = 3000
    database_url: str | None = Field(None, description="SQLAlchemy URL; default SQLite under home")
    redis_url: str | None = Field(None, description="External Redis; default an embedded server")
    redis_port: int = Field(6390, description="Port of the embedded Redis server")
    source: Literal["sim", "replay"] = "sim"
    replay_dir: Path = Path("../shared/data/history")
    replay_start: date | None = Field(None, description="Replay clock start; default the day after the data ends")
    clock_speed: float = Field(1.0, description="Market seconds per wall second for sim/replay")
    clock_anchor: float | None = Field(None, description="Wall time (epoch s) the clock started; set by `up`")
    sim_seed: int = 7
    sim_years: int = 16
    lightning_backend: Literal["dev"] = "dev"
    lightning_network: Literal["bcrt", "tb", "bc"] = "bcrt"
    invoice_expiry_s: int = 3600
    pulse_rate_per_minute: int = 10
    free_queries_per_module_per_day: int = 1
    refresh_minutes: int = 2
    trust_forwarded_for: bool = Field(False, description="Take the client IP from X-Forwarded-For")

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
