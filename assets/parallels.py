"""Historical parallels: today's state against the 30 curated episodes, stored for the publish step.

Three asset checks, evaluated in the same step as the view they judge: the shipped episode file holds to
its schema, no offered episode's window or end lies after the clock, every similarity is in [0, 1]."""

import time
from dataclasses import replace
from datetime import date

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    MaterializeResult,
    MetadataValue,
    asset,
)

from assets.ingest import observations
from assets.resources import MarketResource, WarehouseResource

PRODUCT = "parallels"
CHECKS = {
    "episode_file_schema": "the shipped episode file holds to its schema (fields, tags, figures with sources)",
    "offered_within_clock": "every offered episode's 12-month window and end are on or before the market clock",
    "similarity_in_unit_range": "every similarity and coverage is in [0, 1] and results are ranked by similarity",
}


def window_problems(view: dict, today: date) -> list[str]:
    return [r["id"] for r in view["results"]
            if date.fromisoformat(r["window_end"]) > today or date.fromisoformat(r["end"]) > today]


def similarity_problems(view: dict) -> list[str]:
    bad = [r["id"] for r in view["results"] if not (0.0 <= r["similarity"] <= 1.0 and 0.0 <= r["coverage"] <= 1.0)]
    scores = [r["similarity"] for r in view["results"]]
    return bad + (["results not ranked by similarity"] if scores != sorted(scores, reverse=True) else [])


def _check(name: str, problems: list[str]) -> AssetCheckResult:
    return AssetCheckResult(check_name=name, passed=not problems, severity=AssetCheckSeverity.ERROR,
                            metadata={"problems": MetadataValue.json(problems[:20]), "count": len(problems)})


@asset(group_name="foresight", deps=[observations], kinds={"polars", "duckdb"},
       check_specs=[AssetCheckSpec(n, asset=PRODUCT, description=d) for n, d in CHECKS.items()],
       description="Historical parallels: the closest of 30 curated episodes (1929-2024) to today's market "
                   "state, with what happened next.")
def parallels(context: AssetExecutionContext, market: MarketResource,
              warehouse: WarehouseResource) -> MaterializeResult:
    from intel.parallels import load_episodes, parallels_view
    from intel.parallels.episodes import schema_problems
    from intel.parallels.state import PARALLELS_INPUTS, PARALLELS_LOOKBACK_DAYS

    started = time.perf_counter()
    episodes = load_episodes()
    source = market.provider.name
    with warehouse.open() as store:
        frames = replace(store.frames(PARALLELS_INPUTS, market.today, PARALLELS_LOOKBACK_DAYS, source),
                         clock=market.now)
        view = parallels_view(frames, episodes, market.today)
        store.write_product(PRODUCT, market.today, view, source, market.now)
    top = view["results"][0] if view["results"] else None
    return MaterializeResult(
        metadata={"status": "ok", "as_of": view["as_of"], "episodes_offered": view["episodes_offered"],
                  "detected_tags": MetadataValue.json(view["detected_tags"]),
                  "top": f"{top['id']} ({top['similarity']})" if top else "none offered",
                  "seconds": round(time.perf_counter() - started, 3)},
        check_results=[_check("episode_file_schema", schema_problems(episodes)),
                       _check("offered_within_clock", window_problems(view, market.today)),
                       _check("similarity_in_unit_range", similarity_problems(view))],
    )
