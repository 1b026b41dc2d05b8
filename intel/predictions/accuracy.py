"""The accuracy of a prediction record, per kind, per category and as a headline, from (prediction, resolution)
pairs as the signed chain holds them: what `marketintel predictions score` prints and anyone can recompute.

Each statement is scored against the base rate its record states (`base_rate`: its kind's outcome frequency among
outcomes resolved before its issue day). Records written before that field existed get the frequency among the
record's own earlier resolutions of the kind, and the report says how many were scored that way."""
from __future__ import annotations

from collections import defaultdict
from datetime import date

import numpy as np

from intel.predictions import skill
from intel.predictions.resolution import day_number
from intel.predictions.scoring import prior_rates

METHOD = ("Per kind (question): Brier score, the Brier score of the kind's base rate known on each issue day (the "
          "frequency of its outcomes resolved before that day, from all the history), skill = 1 - Brier / base-rate "
          "Brier with a 90% interval from a moving-block bootstrap over issue days (blocks twice the horizon, at "
          "least 21 days: overlapping horizons are not independent), log loss, ECE and a 10-bin reliability table. "
          "A category's and the headline's skill are the case-weighted means of their kinds' skills, never a skill "
          "against a pooled base rate. The bar a kind must clear to be published in the live record: at least "
          f"{skill.BAR_MIN_CASES} cases, skill above 0 with the lower end of its 90% interval above 0, and ECE below "
          f"{skill.BAR_ECE}.")


def report(pairs: list[tuple[dict, dict]]) -> dict:
    """Per kind, per category, the headline, and the same over the statements the live record published."""
    if not pairs:
        return {"n": 0, "method": METHOD}
    stated = np.array([np.nan if pr.get("base_rate") is None else pr["base_rate"] for pr, _ in pairs])
    derived = np.isnan(stated)
    base = np.where(derived, prior_rates(pairs) if derived.any() else 0.0, stated)
    groups: dict[str, list[int]] = defaultdict(list)
    for i, (prediction, _) in enumerate(pairs):
        groups[prediction["question"]].append(i)
    out = {"n": len(pairs), "base_rate_derived_from_record": int(derived.sum()), "method": METHOD}
    for scope, keep in (("all", None), ("published", True)):
        out[scope] = _scope(pairs, base, groups, keep)
    return out


def _scope(pairs, base: np.ndarray, groups: dict[str, list[int]], published_only: bool | None) -> dict:
    kinds, horizons, categories = {}, {}, defaultdict(list)
    for kind, idx in sorted(groups.items()):
        if published_only:
            idx = [i for i in idx if (pairs[i][0].get("model") or {}).get("published") is True]
        if not idx:
            continue
        first = pairs[idx[0]][0]
        kinds[kind] = skill.Cases.of([pairs[i][0]["probability"] for i in idx],
                                     [float(bool(pairs[i][1]["outcome"])) for i in idx], base[idx],
                                     [day_number(date.fromisoformat(pairs[i][0]["issued_on"])) for i in idx])
        horizons[kind] = skill.horizon_days(first["horizon"])
        categories[first["category"]].append(kind)
    by_kind = {}
    for kind, cases in kinds.items():
        row = skill.figures(cases, horizons[kind])
        met, why = skill.verdict(row)
        by_kind[kind] = {"category": pairs[groups[kind][0]][0]["category"], **row, "meets_bar": met, "bar": why}
    by_category = {cat: skill.headline({k: kinds[k] for k in members}, horizons)
                   for cat, members in sorted(categories.items())}
    return {"headline": skill.headline(kinds, horizons), "by_category": by_category, "by_kind": by_kind}
