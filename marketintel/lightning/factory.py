"""Choose the Lightning backend named in the settings."""
from __future__ import annotations

from marketintel.settings import Settings

from .base import LightningBackend


def make_backend(settings: Settings) -> LightningBackend:
    if settings.lightning_backend == "dev":
        from .dev import DevLightning

        return DevLightning(settings.home, settings.lightning_network)
    raise ValueError(f"unknown Lightning backend {settings.lightning_backend!r}")
