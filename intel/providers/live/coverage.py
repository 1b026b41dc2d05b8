"""What the live configuration covers: each source and the series it serves, each module live, partial or
unavailable and why, and what each unset key would add. Pure: the configuration and the last ingest report
(`assets/ingest.py`, None before the first) in, a dict out; `marketintel sources`, the start-up banner and
/health/dashboard print it.

A series is `live` when a working source serves it (before any ingest: when one is configured), `failing` when
its sources are configured but the last ingest could not get it, `unavailable` when no source serves it with
this configuration. A module is `live` when every input is live, `unavailable` when none is, else `partial`.
"""
from __future__ import annotations

from intel.catalog import CATALOG
from intel.providers.live import sources
from intel.providers.live.client import LiveConfig
from intel.registry import modules


def series_status(config: LiveConfig, report: dict | None) -> dict[str, dict]:
    failed = (report or {}).get("series_failed", {})
    answered = (report or {}).get("series_sources", {})
    out = {}
    for sid in sorted(CATALOG):
        route = sources.chain(sid, config)
        if not sources.counts(sid, config) and sid not in answered:
            state = "unavailable"
        else:
            state = "failing" if sid in failed else "live"
        out[sid] = {"status": state, "sources": route, "source": answered.get(sid),
                    "derived": sources.derivation(sid, answered.get(sid) or (route[0] if route else "")),
                    "error": failed.get(sid), "settings": sources.keys_needed(sid, config)}
    return out


def module_status(series: dict[str, dict]) -> dict[str, dict]:
    out = {}
    for name, module in sorted(modules().items()):
        missing = [s for s in module.inputs if series.get(s, {}).get("status") != "live"]
        state = "live" if not missing else "unavailable" if len(missing) == len(module.inputs) else "partial"
        settings = sorted({k for s in missing for k in series.get(s, {}).get("settings", [])})
        out[name] = {"status": state, "missing_series": missing, "settings": settings}
    return out


def what_keys_add(config: LiveConfig, series: dict[str, dict]) -> dict[str, list[str]]:
    """{unset setting: the series it would bring}."""
    out: dict[str, list[str]] = {}
    for sid, entry in series.items():
        if entry["status"] == "unavailable":
            for setting in entry["settings"]:
                out.setdefault(setting, []).append(sid)
    return out


def coverage(config: LiveConfig, report: dict | None = None, statuses: dict | None = None) -> dict:
    """Everything `marketintel sources` shows; `statuses`: the sources' breaker states (`mi:status:sources`)."""
    series = series_status(config, report)
    mods = module_status(series)
    served = {}
    for name, module in sources.MODULES.items():
        configured = any(name in entry["sources"] for entry in series.values())
        served[name] = {"configured": configured, "refusing": module in sources.REFUSING,
                        "series": sorted(sid for sid, e in series.items() if e["source"] == name
                                         or (e["source"] is None and e["sources"][:1] == [name])),
                        **(statuses or {}).get(name, {})}
    keys = what_keys_add(config, series)
    live_series = sum(e["status"] == "live" for e in series.values())
    live_modules = sum(m["status"] == "live" for m in mods.values())
    summary = (f"live: {live_series} of {len(series)} series, {live_modules} of {len(mods)} modules"
               + (f"; set {' or '.join(sorted(keys))} for the rest" if keys else ""))
    return {"summary": summary, "sources": served, "series": series, "modules": mods, "keys": keys}
