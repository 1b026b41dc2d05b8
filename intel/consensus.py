"""Agent consensus: what agents are paying attention to, and what the modules they attend to say.

Pure: usage tallies in (counts and numbers of distinct callers per window, topic, category, hour and format,
aggregated by the ledger: see warehouse/ledger/usage.py), the published modules' signals in, a dict out. No
caller is ever named here; a figure drawn from fewer than `min_callers` distinct callers is not shown at all.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

MIN_CALLERS_FLOOR = 3  # the least the setting may be: below it, a figure could describe one or two agents
# Categories whose modules gauge market-wide risk: their "bullish" reads as risk-on (a calm VIX, a benign
# regime). Signals of the other categories are about an asset class, and their consensus is bullish/bearish.
RISK_GAUGE_CATEGORIES = ("regime", "volatility", "overview", "cross_asset")
NEUTRAL_BAND = 0.15  # |attention-weighted stance| below this is no lean either way
CONFLICT_MASS = 0.5  # ... unless bullish and bearish conviction together pass this: then the attended disagree
DIRECTION_VALUE = {"bullish": 1.0, "bearish": -1.0, "neutral": 0.0}
SHIFTS_SHOWN = 10
ITEM_CATEGORY_PREFIX = "item:"  # a priced item other than a module (an ask, a product) is in "item:<kind>"


@dataclass(frozen=True)
class Tally:
    queries: int
    callers: int  # distinct callers: a registered agent, or an anonymous caller (by its hashed address)


@dataclass(frozen=True)
class Attention:
    """Usage in two adjacent windows of equal length, [start, split) and [split, end]: counts and numbers of
    distinct callers only. Nothing in it names a caller."""

    start: datetime
    split: datetime
    end: datetime
    totals: dict[str, Tally]  # "previous" | "current" -> all queries
    topics: dict[tuple[str, str], Tally]  # (window, topic: a module, or a priced item's key)
    categories: dict[tuple[str, str], Tally]  # (window, category)
    hours: dict[int, Tally]  # UTC hour of day -> the current window's queries in it
    formats: dict[str, Tally]  # format -> the current window's queries in it


def topic_categories(module_categories: Mapping[str, str], item_keys: list[str]) -> dict[str, str]:
    """Each topic's category: a module's own (the registry's), a priced item's kind (`item:ask`, `item:product`)."""
    categories = {key: ITEM_CATEGORY_PREFIX + key.partition(":")[0] for key in item_keys if ":" in key}
    categories.update({key: ITEM_CATEGORY_PREFIX + key for key in item_keys if ":" not in key})
    categories.update(module_categories)
    return categories


def shown(tally: Tally | None, min_callers: int) -> bool:
    """A window's figure may be shown: nobody asked (zero says nothing of anyone) or enough distinct callers did."""
    return tally is None or tally.queries == 0 or tally.callers >= min_callers


def visible(previous: Tally | None, current: Tally | None, min_callers: int) -> bool:
    """A topic is shown when every window figure it shows passes `shown` and one of them has queries."""
    asked = any(t is not None and t.queries > 0 for t in (previous, current))
    return asked and shown(previous, min_callers) and shown(current, min_callers)


def _share(tally: Tally | None, total: Tally | None) -> float:
    return tally.queries / total.queries if tally and total and total.queries else 0.0


def share_changes(tallies: dict[tuple[str, str], Tally], totals: dict[str, Tally], min_callers: int) -> list[dict]:
    """Each visible topic's share of all queries in both windows and the change, largest rise first."""
    names = sorted({name for _, name in tallies})
    rows = []
    for name in names:
        before, now = tallies.get(("previous", name)), tallies.get(("current", name))
        if not visible(before, now, min_callers):
            continue
        share, previous_share = _share(now, totals.get("current")), _share(before, totals.get("previous"))
        rows.append({"name": name, "share": round(share, 4), "previous_share": round(previous_share, 4),
                     "change": round(share - previous_share, 4), "queries": now.queries if now else 0,
                     "previous_queries": before.queries if before else 0, "agents": now.callers if now else 0})
    return sorted(rows, key=lambda r: (-r["change"], r["name"]))


def trending(attention: Attention, module_categories: Mapping[str, str], min_callers: int) -> list[dict]:
    """Modules, items and categories whose share of queries rose against the previous window."""
    topics = [{**row, "kind": "module" if row["name"] in module_categories else "item",
               "category": module_categories.get(row["name"])}
              for row in share_changes(attention.topics, attention.totals, min_callers)]
    categories = [{**row, "kind": "category"}
                  for row in share_changes(attention.categories, attention.totals, min_callers)]
    rising = [row for row in topics + categories if row["change"] > 0]
    return sorted(rising, key=lambda r: (-r["change"], r["kind"], r["name"]))


def shifts(attention: Attention, min_callers: int) -> list[dict]:
    """Categories whose share moved most, either way: where attention came from and went to."""
    rows = share_changes(attention.categories, attention.totals, min_callers)
    moved = sorted((r for r in rows if r["change"] != 0), key=lambda r: (-abs(r["change"]), r["name"]))
    return [{"category": r["name"], "from_share": r["previous_share"], "to_share": r["share"],
             "change": r["change"], "direction": "toward" if r["change"] > 0 else "away"}
            for r in moved[:SHIFTS_SHOWN]]


def current_window(tallies: Mapping[tuple[str, str], Tally], min_callers: int) -> dict[str, Tally]:
    """The current window's tallies with queries from enough distinct callers to be shown."""
    return {name: t for (window, name), t in tallies.items()
            if window == "current" and t.queries and t.callers >= min_callers}


def patterns(attention: Attention, min_callers: int) -> dict:
    """The current window's queries by UTC hour of day, by format and by category (each bucket with enough
    distinct callers; shares are of all the window's queries), most queried first."""
    total = attention.totals.get("current")

    def buckets(tallies: Mapping, label: str) -> list[dict]:
        rows = [{label: key, "queries": t.queries, "share": round(_share(t, total), 4), "agents": t.callers}
                for key, t in tallies.items() if t.queries and t.callers >= min_callers]
        return sorted(rows, key=lambda r: (-r["queries"], r[label]))

    return {"by_hour_utc": sorted(buckets(attention.hours, "hour"), key=lambda r: r["hour"]),
            "by_format": buckets(attention.formats, "format"),
            "by_category": buckets(current_window(attention.categories, min_callers), "category")}


def module_stance(signals: list[dict]) -> tuple[float, float, float]:
    """(stance in [-1, 1], bullish conviction, bearish conviction): the confidence-weighted mean direction of a
    module's signals, and the shares of its confidence on each side."""
    weights = [(DIRECTION_VALUE.get(s.get("direction"), 0.0), float(s.get("confidence") or 0.0)) for s in signals]
    total = sum(c for _, c in weights)
    if total <= 0:
        return 0.0, 0.0, 0.0
    return (sum(d * c for d, c in weights) / total, sum(c for d, c in weights if d > 0) / total,
            sum(c for d, c in weights if d < 0) / total)


def consensus_signal(attended: list[dict], payloads: Mapping[str, dict], module_categories: Mapping[str, str]
                     ) -> dict:
    """`attended`: visible module topics of the current window (`name`, `queries`). Each module's stance from its
    published signals, weighted by its share of the attended modules' queries, gives the lean; the kind of
    module carrying the weight names it (risk gauges: risk_on/risk_off; asset classes: bullish/bearish)."""
    modules = []
    for row in attended:
        payload = payloads.get(row["name"])
        signals = (payload or {}).get("signals") or []
        if signals:
            stance, bull, bear = module_stance(signals)
            modules.append({"module": row["name"], "category": module_categories[row["name"]],
                            "queries": row["queries"], "stance": stance, "bull": bull, "bear": bear,
                            "signals": len(signals), "as_of": payload.get("as_of")})
    weight_total = sum(m["queries"] for m in modules)
    for m in modules:
        m["attention_weight"] = m["queries"] / weight_total
    score = sum(m["attention_weight"] * m["stance"] for m in modules)
    bull = sum(m["attention_weight"] * m["bull"] for m in modules)
    bear = sum(m["attention_weight"] * m["bear"] for m in modules)
    gauge = sum(m["attention_weight"] for m in modules if m["category"] in RISK_GAUGE_CATEGORIES)
    label = _label(bool(modules), score, bull, bear, gauge)
    return {"signal": label, "score": round(score, 4), "bullish_weight": round(bull, 4),
            "bearish_weight": round(bear, 4), "risk_gauge_weight": round(gauge, 4),
            "modules": [{"module": m["module"], "category": m["category"],
                         "attention_weight": round(m["attention_weight"], 4), "stance": round(m["stance"], 4),
                         "signals": m["signals"], "as_of": m["as_of"]}
                        for m in sorted(modules, key=lambda m: (-m["queries"], m["module"]))],
            "derivation": _derivation(label, len(modules), score, bull, bear, gauge)}


def _label(any_module: bool, score: float, bull: float, bear: float, gauge: float) -> str:
    if not any_module:
        return "uncertain"
    if abs(score) < NEUTRAL_BAND:
        return "uncertain" if bull + bear >= CONFLICT_MASS else "neutral"
    if gauge >= 0.5:
        return "risk_on" if score > 0 else "risk_off"
    return "bullish" if score > 0 else "bearish"


def _derivation(label: str, n: int, score: float, bull: float, bear: float, gauge: float) -> str:
    if n == 0:
        return ("uncertain: no module with published signals was queried by enough distinct agents in the window "
                "to be shown, so there is no attended evidence to weigh.")
    return (f"{label}: over {n} attended module(s), each module's stance is the confidence-weighted mean of its "
            f"published signals' directions (bullish +1, bearish -1, neutral 0), weighted by the module's share "
            f"of the attended modules' queries: score {score:.3f} (bullish conviction {bull:.3f}, bearish "
            f"{bear:.3f}). |score| below {NEUTRAL_BAND} is neutral, or uncertain when bullish and bearish "
            f"conviction together reach {CONFLICT_MASS}; otherwise the lean is risk_on/risk_off when risk-gauge "
            f"modules ({', '.join(RISK_GAUGE_CATEGORIES)}) carry at least half the weight (here {gauge:.3f}), "
            f"bullish/bearish when asset-class modules do.")


def consensus(attention: Attention, payloads: Mapping[str, dict], module_categories: Mapping[str, str],
              min_callers: int) -> dict:
    """The consensus answer over `attention` (see the module docstring). `payloads`: published module payloads
    of the attended modules (their `signals` and `as_of`); `module_categories`: the registry's module -> category."""
    if min_callers < MIN_CALLERS_FLOOR:
        raise ValueError(f"min_callers must be at least {MIN_CALLERS_FLOOR}, got {min_callers}")
    topics = current_window(attention.topics, min_callers)
    attended = [{"name": name, "queries": t.queries} for name, t in topics.items() if name in module_categories]
    signal = consensus_signal(attended, payloads, module_categories)
    return {"totals": _totals(attention.totals, min_callers),
            "trending_topics": trending(attention, module_categories, min_callers),
            "attention_shifts": shifts(attention, min_callers),
            "query_patterns": patterns(attention, min_callers),
            "consensus": signal,
            "summary": _summary(attention, signal, topics, min_callers)}


def _totals(totals: dict[str, Tally], min_callers: int) -> dict:
    out = {}
    for window in ("current", "previous"):
        tally = totals.get(window)
        ok = tally is not None and tally.callers >= min_callers
        out[window] = {"queries": tally.queries if ok else None, "agents": tally.callers if ok else None}
    return out


def _summary(attention: Attention, signal: dict, topics: dict[str, Tally], min_callers: int) -> str:
    hours = round((attention.end - attention.split).total_seconds() / 3600)
    total = attention.totals.get("current")
    lead = sorted(topics.items(), key=lambda item: (-item[1].queries, item[0]))[:3]
    named = ", ".join(f"{name} ({_share(t, total):.1%} of queries)" for name, t in lead) or "no topic"
    return (f"Over the last {hours} hour(s), the most-queried topics seen by at least {min_callers} distinct "
            f"agents were {named}. Consensus of the attended modules' signals: {signal['signal']} "
            f"(score {signal['score']}).")
