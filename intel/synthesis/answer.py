"""Ask: a question in, a JSON-ready answer out, every figure in it one of the service's published figures named
by module, field and as-of date. The engine writes the text (engines.py); the number check then takes out any
sentence stating a number that is not a supporting figure, and the answer says which engine wrote it and what
the check took out. A failing model is replaced by the built-in composer, said in the caveats."""
from __future__ import annotations

from datetime import datetime

from intel.registry import modules
from intel.synthesis.conviction import conviction
from intel.synthesis.engines import Brief, BuiltinComposer, Engine, EngineFailed, Section
from intel.synthesis.evidence import (
    DEPTHS,
    Consulted,
    choose,
    input_caveats,
    module_figures,
    ranked_modules,
    read_modules,
    read_ticker_modules,
    regime_context,
)
from intel.synthesis.foresight import Foresight, read_foresight
from intel.synthesis.number_check import check_numbers
from intel.synthesis.published import PublishedReader
from intel.synthesis.question import asset_classes, date_caveats, read_question

DISCLAIMER = ("Market intelligence computed from the service's own published figures, for information only: not "
              "investment, legal or tax advice. Figures can be revised, late or simulated (see `simulated` and "
              "`caveats`); check them before acting.")
FOLLOW_UPS = 4


def _sections(consulted: list[Consulted]) -> list[Section]:
    return [Section(c.module, c.reason, c.payload.get("summary") or "",
                    [{k: s.get(k) for k in ("name", "direction", "urgency", "reason")}
                     for s in c.payload.get("signals") or []], c.figures, c.ticker) for c in consulted]


def _follow_ups(consulted: list[Consulted], depth: str, question: str) -> list[dict]:
    """Related modules the answer did not read, as questions an agent can ask next (and the module to fetch)."""
    read = {c.module for c in consulted}
    out: list[dict] = []
    for c in consulted:
        for related in c.payload.get("related_modules") or []:
            name = related.get("name")
            if name and name not in read and all(o.get("module") != name for o in out):
                out.append({"query": f"What does {name.replace('_', ' ')} say: {related.get('reason', '')}?",
                            "module": name, "endpoint": f"/api/v1/intelligence/{name}"})
    out = out[:FOLLOW_UPS]
    if depth != "deep":
        out.append({"query": question, "depth": "deep",
                    "why": "a deep answer reads more modules, the historical parallels and the prediction record"})
    return out


def _write(engine: Engine, brief: Brief, caveats: list[str]) -> tuple[str, dict]:
    used = {"name": engine.name, "model": engine.model, "fallback": False}
    try:
        return engine.write(brief), used
    except EngineFailed as failure:
        caveats.append(f"The language model failed ({failure}); the built-in composer wrote this answer instead.")
        fallback = BuiltinComposer()
        return fallback.write(brief), {**used, "name": fallback.name, "fallback": True, "failed": engine.name}


def _consult(question: str, depth: str, reader: PublishedReader, now: datetime):
    registry, breadth = modules(), DEPTHS[depth]
    read = read_question(question, registry)
    caveats: list[str] = []
    missing: list[dict] = []
    ranked = ranked_modules(question, reader, registry)
    wanted, matched = choose(ranked, breadth)
    consulted = read_modules(wanted, reader, caveats, missing)
    consulted += read_ticker_modules(read.tickers, question, reader, registry, breadth, caveats, missing)
    if not matched:
        caveats.append("The question matched no module; this is the cross-market overview.")
    regime, regime_module = regime_context(reader, now.date(), caveats)
    if regime_module is not None and all(c.module != regime_module.module for c in consulted):
        consulted.insert(0, regime_module)
    for c in consulted:
        c.figures = list(dict.fromkeys((regime_module.figures if c is regime_module else [])
                                       + module_figures(c, breadth.figures_per_module, now.date())))
    wanted_count = len(wanted) + len(read.tickers) * breadth.ticker_modules + (1 if regime_module else 0)
    return read, ranked, matched, consulted, regime, caveats, missing, wanted_count


def answer_question(question: str, depth: str, reader: PublishedReader, engine, now: datetime) -> dict:
    if depth not in DEPTHS:
        raise ValueError(f"depth must be one of {', '.join(DEPTHS)}")
    read, ranked, matched, consulted, regime, caveats, missing, wanted = _consult(question, depth, reader, now)
    foresight = read_foresight(reader) if DEPTHS[depth].foresight else Foresight()
    signals = [s for c in consulted for s in c.payload.get("signals") or []]
    scored = conviction(signals, len(consulted), wanted)
    as_of = max((c.payload.get("as_of") for c in consulted if c.payload.get("as_of")), default=None)
    data_as_of = min((c.payload.get("data_as_of") for c in consulted if c.payload.get("data_as_of")), default=None)
    caveats += date_caveats(read.dates, as_of, now.date()) + input_caveats(consulted, now.date()) + foresight.caveats
    simulated = any(c.simulated for c in consulted)
    regime_payload = next((c.payload for c in consulted if regime and c.module == regime["module"]), {})
    brief = Brief(question, depth, as_of, regime, regime_payload.get("summary", "") if regime else "",
                  _sections([c for c in consulted if not regime or c.module != regime["module"]]), matched,
                  scored["stance"], foresight.lines, simulated, DEPTHS[depth].summary_sentences)
    supporting = list(dict.fromkeys([f for c in consulted for f in c.figures] + foresight.figures))
    text, used = _write(engine, brief, caveats)
    checked = check_numbers(text, supporting)
    if checked.removed:
        caveats.append(f"The number check took out {len(checked.removed)} sentence(s) stating a number that is "
                       "not one of the supporting figures.")
    products = set(foresight.products)
    return {
        "question": question,
        "depth": depth,
        "answer": checked.text,
        "conviction_score": scored["score"],
        "conviction": scored,
        "regime": regime,
        "supporting_data": [{**f.to_dict(), **({"product": True} if f.module in products else {})}
                            for f in supporting],
        "modules_consulted": [c.to_dict() for c in consulted],
        "sources_missing": missing,
        "foresight": foresight.sections or None,
        "question_read": read.to_dict(asset_classes([r.category for r in ranked[: DEPTHS[depth].modules]]),
                                      matched),
        "as_of": as_of,
        "data_as_of": data_as_of,
        "market_clock": now.isoformat(),
        "caveats": list(dict.fromkeys(caveats)),
        "follow_up_queries": _follow_ups(consulted, depth, question),
        "engine": used,
        "number_check": checked.to_dict(),
        "simulated": simulated,
        "data_source": ",".join(sorted({c.data_source for c in consulted if c.data_source})) or None,
        "disclaimer": DISCLAIMER,
    }
