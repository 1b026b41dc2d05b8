"""Unified context: one aggregated view across the modules relevant to a topic (every category when there is
none): the regime, each category's signals and key figures, where modules disagree, the upcoming calendar, and on
request a plain-text prompt block an agent pastes into its own model, written only from those figures."""
from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from intel.modules.economic_calendar import NAME as CALENDAR
from intel.registry import modules
from intel.synthesis.conviction import conviction
from intel.synthesis.engines import figure_line
from intel.synthesis.evidence import (
    DEPTHS,
    TICKER_CATEGORY,
    Consulted,
    input_caveats,
    quoted_figures,
    ranked_modules,
    read_modules,
    regime_context,
)
from intel.synthesis.published import Figure, PublishedReader, figure, figures

# modules per category when no topic narrows the view
PER_CATEGORY = {"quick": 2, "standard": 4, "deep": None}
CALENDAR_EVENTS = {"quick": 4, "standard": 8, "deep": None}
SIGNAL_KEYS = ("name", "direction", "confidence", "urgency", "reason")


def _wanted(topic: str | None, depth: str, reader: PublishedReader, registry, caveats: list[str]):
    """(module, why, score) for the topic's best-ranked modules, or a few per category without a topic."""
    published = set(reader.published())
    if topic:
        ranked = [r for r in ranked_modules(topic, reader, registry) if r.name in published]
        if ranked:
            return [(r.name, f"matched the topic (BM25 score {r.score})", r.score)
                    for r in ranked[: DEPTHS[depth].modules]]
        caveats.append(f"The topic {topic!r} matched no module; this is the view across every category.")
    by_category: dict[str, list[str]] = defaultdict(list)
    for name in sorted(published):
        module = registry.get(name)
        if module is not None and module.category != TICKER_CATEGORY:
            by_category[module.category].append(name)
    limit = PER_CATEGORY[depth]
    return [(name, f"a {category} module", None) for category, names in sorted(by_category.items())
            for name in names[:limit]]


def _lean(payload: dict) -> str:
    return conviction(payload.get("signals") or [], 1, 1)["stance"]


def _category_view(members: list[Consulted], registry) -> dict:
    signals = [{"module": c.module, **{k: s.get(k) for k in SIGNAL_KEYS}}
               for c in members for s in c.payload.get("signals") or []]
    lean = conviction(signals, len(members), len(members))
    return {"modules": [c.to_dict() for c in members], "lean": {k: lean[k] for k in ("stance", "net_direction")},
            "signals": signals, "key_figures": [f.to_dict() for c in members for f in c.figures]}


def disagreements(consulted: list[Consulted], registry) -> list[dict]:
    """Pairs of modules leaning opposite ways (bullish against bearish), within a category or where one names
    the other as related."""
    lean = {c.module: _lean(c.payload) for c in consulted}
    found: dict[tuple[str, str], str] = {}
    for a in consulted:
        related = {r.get("name") for r in a.payload.get("related_modules") or []}
        for b in consulted:
            if a.module >= b.module or {lean[a.module], lean[b.module]} != {"bullish", "bearish"}:
                continue
            same = registry[a.module].category == registry[b.module].category
            if same or b.module in related or a.module in {r.get("name") for r in b.payload.get(
                    "related_modules") or []}:
                found[(a.module, b.module)] = (f"within {registry[a.module].category}" if same
                                               else "related modules")
    by_name = {c.module: c for c in consulted}
    return [{"modules": list(pair), "where": where, "directions": {m: lean[m] for m in pair},
             "signals": [{"module": m, **{k: s.get(k) for k in ("name", "direction", "reason")}}
                         for m in pair for s in by_name[m].payload.get("signals") or []
                         if s.get("direction") == lean[m]]}
            for pair, where in sorted(found.items())]


def calendar(reader: PublishedReader, depth: str, caveats: list[str]) -> tuple[list[dict], list[Figure]]:
    """The upcoming releases from the published economic calendar, each last and prior value cited."""
    payload = reader.module(CALENDAR)
    if payload is None:
        caveats.append(f"{CALENDAR} is not published: no upcoming events.")
        return [], []
    events, cited = [], []
    upcoming = (payload.get("data") or {}).get("upcoming") or []
    for i, event in enumerate(upcoming[: CALENDAR_EVENTS[depth]]):
        paths = [f"upcoming.{i}.days_until"] + [f"upcoming.{i}.last_values.{sid}.{k}"
                                                for sid in event.get("last_values") or {} for k in ("last", "prior")]
        found = [f for f in (figure(CALENDAR, payload, p) for p in paths) if f is not None]
        cited += found
        events.append({k: event.get(k) for k in ("event", "date", "time_et", "importance", "reference_period")}
                      | {"figures": [f.to_dict() for f in found]})
    return events, cited


def prompt_block(topic: str | None, as_of: str | None, regime: dict | None, categories: dict, conflicts: list[dict],
                 events: list[dict], simulated: bool) -> str:
    """Plain text for an agent's model: the figures and signals above, each figure named module.field."""
    lines = [f"MARKET CONTEXT{f' on {topic}' if topic else ''}, as of {as_of}"
             + (" (SIMULATED DATA: a seeded market simulation, not real markets)" if simulated else "")]
    lines.append("Cite only these figures, by module.field; they are the service's published values.")
    if regime:
        lines.append(f"Regime: {regime['state']} ({regime['module']})")
        lines += [f"  {p['module']}.{p['field']} = {p['value']}" for p in regime["probabilities"]]
    for category, view in categories.items():
        lines.append(f"\n[{category}] leaning {view['lean']['stance']}")
        lines += [f"  signal {s['module']}.{s['name']}: {s['direction']} ({s['reason']})" for s in view["signals"]]
        lines += ["  " + figure_line(Figure(**{k: f.get(k) for k in ("module", "field", "value", "as_of")}))
                  for f in view["key_figures"]]
    if conflicts:
        lines.append("\nDisagreements:")
        lines += [f"  {c['modules'][0]} {c['directions'][c['modules'][0]]} vs {c['modules'][1]} "
                  f"{c['directions'][c['modules'][1]]} ({c['where']})" for c in conflicts]
    if events:
        lines.append("\nUpcoming releases:")
        for e in events:
            lines.append(f"  {e['date']} {e.get('time_et') or ''} {e['event']} ({e['importance']})")
            lines += [f"    {f['module']}.{f['field']} = {f['value']}" for f in e["figures"]]
    return "\n".join(lines)


def unified_context(topic: str | None, depth: str, reader: PublishedReader, include_prompt: bool,
                    now: datetime) -> dict:
    if depth not in DEPTHS:
        raise ValueError(f"depth must be one of {', '.join(DEPTHS)}")
    registry, today = modules(), now.date()
    caveats: list[str] = []
    missing: list[dict] = []
    topic = (topic or "").strip() or None
    consulted = read_modules(_wanted(topic, depth, reader, registry, caveats), reader, caveats, missing)
    for c in consulted:
        reasons = " ".join(s.get("reason", "") for s in c.payload.get("signals") or [])
        chosen = figures(c.module, c.payload, DEPTHS[depth].figures_per_module) + quoted_figures(
            c.module, c.payload, reasons)
        c.figures = [f for f in dict.fromkeys(chosen)
                     if f.observed_through is None or f.observed_through <= today.isoformat()]
    regime, regime_module = regime_context(reader, today, caveats)
    grouped: dict[str, list[Consulted]] = defaultdict(list)
    for c in consulted:
        grouped[registry[c.module].category].append(c)
    categories = {category: _category_view(members, registry) for category, members in sorted(grouped.items())}
    conflicts = disagreements(consulted, registry)
    events, event_figures = calendar(reader, depth, caveats)
    everything = consulted + ([regime_module] if regime_module else [])
    simulated = any(c.simulated for c in everything)
    as_of = max((c.payload.get("as_of") for c in everything if c.payload.get("as_of")), default=None)
    out = {
        "topic": topic, "depth": depth, "as_of": as_of, "market_clock": now.isoformat(), "regime": regime,
        "categories": categories, "disagreements": conflicts, "calendar": {"module": CALENDAR, "upcoming": events},
        "sources_missing": missing, "caveats": list(dict.fromkeys(caveats + input_caveats(everything, today))),
        "simulated": simulated,
        "data_source": ",".join(sorted({c.data_source for c in everything if c.data_source})) or None,
        "figures_count": sum(len(c.figures) for c in consulted) + len(event_figures),
    }
    if include_prompt:
        out["prompt"] = prompt_block(topic, as_of, regime, categories, conflicts, events, simulated)
    return out
