"""`marketintel predictions score`: the accuracy of a prediction record, recomputed from the chain itself.

Locally (no --url) it reads the chain of the settings' SQL store; with --url it pages through a running service's
public export (GET /api/v1/predictions/chain, any valid key), as `predictions verify` does. Verify first: this
scores what it was sent. Prints, per kind, N, Brier, base-rate Brier, skill with its 90% interval, ECE, log loss and
whether the kind meets the bar of the live record; then the categories and the case-weighted headline; then the same
over the statements the live record published (for the back-test: those its gate would have let through)."""
from __future__ import annotations

import httpx
import orjson

from intel.predictions import accuracy, published
from marketintel.verify import CHAIN_EXPORT, _fetch_chain, _local_pages
from warehouse.ledger.records import Records, prediction_chain

COLUMNS = ("n", "brier", "brier_base_rate", "skill", "ece", "log_loss")


def records_of(settings, url: str | None, api_key: str | None, origin: str) -> list[dict]:
    """The chain's records with their bodies parsed: from the service at `url`, else from the local store."""
    if url:
        with httpx.Client(timeout=60) as client:
            rows = _fetch_chain(client, url.rstrip("/") + CHAIN_EXPORT, origin, api_key)[0]
    else:
        from warehouse.ledger import make_engine

        engine = make_engine(settings.sqlalchemy_url)
        try:
            rows = list(_local_pages(Records(engine), prediction_chain(origin)))
        finally:
            engine.dispose()
    return [{**r, "body": orjson.loads(r["body"])} for r in rows]


def scored(records: list[dict], start: str | None = None, end: str | None = None) -> dict:
    """The accuracy report of the resolved statements issued from `start` to `end` (ISO days, inclusive)."""
    pairs = [(p, r) for p, r in published.pairs(published.entries(records))
             if (start is None or p["issued_on"] >= start) and (end is None or p["issued_on"] <= end)]
    return accuracy.report(pairs)


def lines(report: dict) -> list[str]:
    if not report["n"]:
        return ["no resolved statement in the record"]
    out = []
    for scope, title in (("all", "every statement"), ("published", "the statements the live record published")):
        part = report[scope]
        out.append(f"== {title} ==")
        out.append(f"{'kind':<22}" + "".join(f"{c:>16}" for c in COLUMNS) + f"{'skill 90%':>22}  bar")
        for kind, row in part["by_kind"].items():
            interval = f"[{row['skill_ci90'][0]}, {row['skill_ci90'][1]}]"
            out.append(f"{kind:<22}" + "".join(f"{row[c]!s:>16}" for c in COLUMNS) + f"{interval:>22}  "
                       + ("meets: " if row["meets_bar"] else "misses: ") + row["bar"])
        for cat, row in part["by_category"].items():
            out.append(f"category {cat:<13} n {row['n']:>6}  skill {row['skill']} {row['skill_ci90']}")
        head = part["headline"]
        if head.get("n"):
            out.append(f"headline: n {head['n']} over {head['kinds']} kinds, skill {head['skill']} "
                       f"(90% interval {head['skill_ci90'][0]} to {head['skill_ci90'][1]})")
    if report["base_rate_derived_from_record"]:
        out.append(f"{report['base_rate_derived_from_record']} statements carry no base rate (recorded before the "
                   "field existed): scored against their kind's frequency among the record's earlier resolutions")
    out.append(report["method"])
    return out
