"""Write the field dictionary (intel/fields/<module>.json) from what the modules publish.

Every module is computed on simulated data (the tests' state) and replayed over the real history at the dates the
provenance replay test reads; every field seen is declared with its JSON type, `optional` when some state left it
out, `format: date` when every value is an ISO date, its unit from its name or from the series its provenance
names, and its meaning from its provenance `operation`. What a person wrote in an existing entry (a meaning, a
unit) is kept; a field no state publishes any more is dropped and listed.

Run: `.venv/bin/python scripts/field_dictionary.py [--history DIR] [--check]` (about a minute). `--check` writes
nothing and exits 1 when a file would change."""
from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from intel.catalog import CATALOG  # noqa: E402
from intel.envelope import InsufficientData  # noqa: E402
from intel.fields import DATE, FOLDER, holds_fields, missing, published, value_type  # noqa: E402
from intel.frames import Frames  # noqa: E402
from intel.providers.replay import ReplayProvider  # noqa: E402
from intel.providers.sim import SimProvider  # noqa: E402
from intel.registry import modules  # noqa: E402

SIM_DAY = date(2026, 11, 20)  # tests/api/conftest.py AS_OF
REPLAY_DAYS = (date(2008, 10, 10), date(2013, 6, 24), date(2020, 3, 16), date(2022, 6, 17))
TICKER = "XLK"
# a unit read from the field's name, first match wins (the name is the last part of its path)
UNIT_BY_NAME = (
    (r"(_pct_pts|_pp)(_|$)", "percentage points"), (r"(^|_)pct($|_)", "percent"), (r"(^|_)bp($|_)", "basis points"),
    (r"(^|_)usd($|_)", "US dollars"), (r"(^|_)bn($|_)", "billions of the series' unit"),
    (r"(^|_)sd($|_)|zscore|(^|_)z($|_)", "standard deviations"), (r"percentile", "percentile, 0-100"),
    (r"correlation", "correlation coefficient, -1 to 1"), (r"(^|_)beta", "beta"), (r"t_stat", "t statistic"),
    (r"p_value|probability|^to_|persistence", "probability, 0-1"), (r"(^|_)rank", "rank, 1 = first"),
    (r"sessions", "trading sessions"), (r"(^|_)days($|_)", "days"), (r"(^|_)weeks($|_)", "weeks"),
    (r"(^|_)years($|_)|_year$", "years"), (r"(^|_)(n|observations|events|episodes|count|cycles|runs)($|_)|_used$",
                                             "count"), (r"ratio|_to_vol$", "ratio"),
)


def states(history: Path | None) -> list[dict[str, dict]]:
    """{module: payload} for each state: the simulated day, then each replayed day."""
    out = [computed(SimProvider(seed=7), SIM_DAY)]
    if history is not None:
        replay = ReplayProvider(history)
        out += [computed(replay, day) for day in REPLAY_DAYS]
    return out


def computed(provider, day: date) -> dict[str, dict]:
    """{module: payload} for every module with enough history at `day`."""
    out = {}
    for name, module in modules().items():
        start = day - timedelta(days=module.lookback_days)
        frames = Frames.from_long(provider.observations(module.inputs, start, day), day, "fields")
        try:
            payload = (module.compute(frames, provider.bars(TICKER, start, day), TICKER) if module.takes_ticker
                       else module.compute(frames))
        except InsufficientData:
            continue
        out[name] = payload
    return out


def entries(name: str, payloads: list[dict], kept: dict) -> dict:
    """The module's dictionary from the payloads of every state it was computed in."""
    seen: dict[str, list] = {}
    operations: dict[str, dict] = {}
    for payload in payloads:
        fields = published(payload["data"])
        for path, values in fields.items():
            seen.setdefault(path, []).extend(values)
        for path, entry in payload.get("provenance", {}).items():
            operations.setdefault(re.sub(r"\.\d+(?=\.|$)", "[]", path), entry)
    out = {}
    for path in sorted(seen):
        types = {value_type(v) for v in seen[path]} - {None}
        if not types:  # null in every state
            if holds_fields(path, seen):
                continue  # an object (or list) that is sometimes null: its fields declare it
            if "type" not in kept.get(path, {}):
                print(f"{name}: {path} was null in every state: its type is a guess (string); set it by hand")
            kind = kept.get(path, {}).get("type", "string")  # as written by hand
        else:
            kind = "number" if types == {"integer", "number"} else (types.pop() if len(types) == 1 else "string")
        entry = {"type": kind, "meaning": "", "unit": ""}
        provenance = operations.get(path)
        if provenance is not None:
            entry["meaning"] = provenance["operation"]
        if kind in ("integer", "number"):
            entry["unit"] = _unit(path, provenance)
        if kind == "string" and all(v is None or DATE.match(v) for v in seen[path]):
            entry["format"] = "date"
        if any(missing(payload["data"], path) for payload in payloads):
            entry["optional"] = True
        old = kept.get(path, {})
        entry.update({k: old[k] for k in ("meaning", "unit") if old.get(k)})
        out[path] = {k: v for k, v in entry.items() if v != "" or k == "meaning"}
    return out


def _unit(path: str, provenance: dict | None) -> str:
    name = path.rpartition(".")[2].replace("[]", "")
    for pattern, unit in UNIT_BY_NAME:
        if re.search(pattern, name):
            return unit
    recompute = (provenance or {}).get("recompute")
    series = list((provenance or {}).get("observations", {}))
    if recompute and len(set(series)) == 1 and series[0] in CATALOG:
        unit, scale = CATALOG[series[0]].unit, recompute.get("scale", 1)
        if recompute["kind"] in ("level", "difference") and scale == 1:
            return unit
        if recompute["kind"] == "pct_change" and scale == 100:
            return "percent"
        if recompute["kind"] == "difference" and scale == 100 and unit == "percent":
            return "basis points"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=Path, default=ROOT.parent / "shared" / "data" / "history")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    history = args.history if args.history.exists() else None
    if history is None:
        print(f"no real history at {args.history}: simulated data only", file=sys.stderr)
    computed = states(history)
    changed = []
    for name in sorted(modules()):
        path = FOLDER / f"{name}.json"
        kept = json.loads(path.read_text()) if path.exists() else {}
        new = entries(name, [state[name] for state in computed if name in state], kept)
        dropped = sorted(set(kept) - set(new))
        if dropped:
            print(f"{name}: no longer published: {', '.join(dropped)}")
        text = json.dumps(new, indent=1, ensure_ascii=False) + "\n"
        if not path.exists() or path.read_text() != text:
            changed.append(name)
            if not args.check:
                path.write_text(text)
    print(f"{len(changed)} of {len(modules())} dictionaries {'would change' if args.check else 'written'}"
          + (f": {', '.join(changed)}" if changed else ""))
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
