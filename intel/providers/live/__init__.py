"""Keyless live market data: one small client per public source (see `provider.py` for the routing)."""
from intel.providers.live.client import LiveConfig, SourceError
from intel.providers.live.provider import BarsResult, LiveProvider, probe

__all__ = ["BarsResult", "LiveConfig", "LiveProvider", "SourceError", "probe"]
