"""The parallels product: every episode offered at the clock, ranked by similarity to today's state, with
what happened next, implications per asset class and bitcoin's side. `select` is what the API calls on the
published view to filter by conditions and keep the top N, without recomputing anything."""
from __future__ import annotations

from datetime import UTC, date, datetime

from intel.envelope import data_sources
from intel.frames import Frames
from intel.parallels.episodes import offered_from
from intel.parallels.features import FEATURES, state_vector, values
from intel.parallels.outlook import bitcoin_beta, bitcoin_impact, implications
from intel.parallels.readings import Line
from intel.parallels.similarity import MIN_COMPARED, compare, scales
from intel.parallels.state import PARALLELS_INPUTS, lines_from_frames
from intel.parallels.tags import VOCABULARY, describe, state_tags

DEFAULT_TOP_N = 5
MAX_TOP_N = 15
CONDITION_TAGS = VOCABULARY  # what `conditions` may name (anything else is a 422)

METHODOLOGY = {
    "state": "Each episode's state is taken at its start from data known then (daily series: the last value on or "
             "before the start; monthly averages: the last complete month; CPI and unemployment: the last month "
             "published by then). Today's state is read the same way from the warehouse at the clock.",
    "similarity": "Features are standardized by their mean and standard deviation across the offered episodes; only "
                  "features present on both sides are compared; each scores exp(-z^2/2) for a gap of z standard "
                  "deviations; the similarity is their mean times the square root of the coverage (features compared "
                  f"over all features), and none is claimed with fewer than {MIN_COMPARED} features compared.",
    "point_in_time": "An episode is offered only once its 12-month 'what happened next' window and its own end date "
                     "are on or before the clock, and the standardization uses offered episodes only.",
    "equity_figures": "S&P 500 figures come from the daily series where it covers the episode (2017 on) and from "
                      "Shiller's monthly averages before; monthly averages show shallower drawdowns and lower "
                      "realized volatility than daily closes.",
    "volatility": "The VIX where it exists (1990 on); realized volatility of the S&P 500 before, said so per figure.",
    "conditions": "With conditions, only episodes carrying at least one requested tag are kept, most tags matched "
                  "first, then by similarity; without, all offered episodes by similarity, each with the detected "
                  "tags it shares.",
}


def _generated_at(frames: Frames) -> str:
    return (frames.clock or datetime.now(UTC)).isoformat(timespec="seconds")


def _result(episode: dict, comparison: dict, detected: list[str], beta: dict | None) -> dict:
    tags = list(episode["tags"]) + list(episode["state_tags"])
    return {
        "id": episode["id"], "name": episode["name"], "start": episode["start"], "end": episode["end"],
        "window_end": episode["window_end"], "narrative": episode["narrative"],
        "tags": episode["tags"], "state_tags": episode["state_tags"],
        "matched_tags": [t for t in detected if t in tags],
        **comparison,
        "episode_state": episode["state"],
        "next": episode["next"],
        "implications": implications(episode["next"]),
        "bitcoin": bitcoin_impact(episode, beta),
    }


def offered(episodes: list[dict], today: date) -> list[dict]:
    return [e for e in episodes if offered_from(e) <= today]


def rank(current: dict, episodes: list[dict], detected: list[str], beta: dict | None) -> list[dict]:
    feature_scales = scales([values(e["state"]) for e in episodes])
    now = values(current)
    results = [_result(e, compare(now, values(e["state"]), feature_scales), detected, beta) for e in episodes]
    results.sort(key=lambda r: (-r["similarity"], r["start"]))
    for position, result in enumerate(results, start=1):
        result["rank"] = position
    return results


def parallels_view(frames: Frames, episodes_doc: dict, today: date) -> dict:
    """All offered episodes ranked by similarity to the state at `today` (the market clock's date)."""
    lines: dict[str, Line] = lines_from_frames(frames)
    current = state_vector(lines, today)
    detected = state_tags(current)
    episodes = offered(episodes_doc["episodes"], today)
    observed = [date.fromisoformat(f["observed"]) for f in current.values() if f.get("observed")]
    return {
        "as_of": today.isoformat(),
        "data_as_of": max(observed).isoformat() if observed else None,
        "generated_at": _generated_at(frames),
        "current_state": current,
        "features": {f.name: {"label": f.label, "unit": f.unit, "coverage": f.coverage} for f in FEATURES},
        "detected_tags": detected,
        "episodes_offered": len(episodes),
        "episodes_total": len(episodes_doc["episodes"]),
        "results": rank(current, episodes, detected, bitcoin_beta(lines, today)),
        "methodology": {**METHODOLOGY, "tags": describe()},
        "data_sources": {**data_sources(frames, PARALLELS_INPUTS), "episodes": episodes_doc["sources"]},
    }


def select(view: dict, conditions: list[str], top_n: int = DEFAULT_TOP_N) -> dict:
    """The published view cut for one request: `conditions` (tags from CONDITION_TAGS; empty: the detected
    tags are reported and the ranking is by similarity alone) and the first `top_n` (1..MAX_TOP_N) results."""
    unknown = [c for c in conditions if c not in CONDITION_TAGS]
    if unknown:
        raise ValueError(f"unknown condition tags: {', '.join(unknown)}")
    if not 1 <= top_n <= MAX_TOP_N:
        raise ValueError(f"top_n must be between 1 and {MAX_TOP_N}")
    results = view["results"]
    if conditions:
        results = []
        for r in view["results"]:
            matched = [t for t in conditions if t in set(r["tags"]) | set(r["state_tags"])]
            if matched:
                results.append({**r, "matched_tags": matched})
        results.sort(key=lambda r: (-len(r["matched_tags"]), -r["similarity"], r["start"]))
    kept = results[:top_n]
    return {**{k: v for k, v in view.items() if k != "results"},
            "conditions": list(conditions), "conditions_source": "request" if conditions else "auto_detected",
            "top_n": top_n, "matching": len(results), "results": kept, "across_results": across(kept)}


def across(results: list[dict]) -> dict:
    """What the returned episodes' aftermaths have in common (medians, shares), from their own figures."""
    def figures(key: str) -> list[float]:
        return [r["next"][key]["value"] for r in results if r["next"].get(key, {}).get("value") is not None]

    def median(xs: list[float]) -> float | None:
        if not xs:
            return None
        xs = sorted(xs)
        mid = len(xs) // 2
        return round(xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2, 2)

    r12, recession = figures("sp500_return_12m_pct"), figures("recession_within_12m")
    return {"episodes": len(results),
            "sp500_return_12m_pct_median": median(r12),
            "sp500_max_drawdown_12m_pct_median": median(figures("sp500_max_drawdown_12m_pct")),
            "dgs10_change_12m_pp_median": median(figures("dgs10_change_12m_pp")),
            "gold_return_12m_pct_median": median(figures("gold_return_12m_pct")),
            "share_sp500_down_12m": round(sum(x < 0 for x in r12) / len(r12), 2) if r12 else None,
            "share_recession_within_12m": round(sum(bool(x) for x in recession) / len(recession), 2)
            if recession else None}
