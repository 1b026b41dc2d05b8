"""How alike today's state and an episode's start are, on standardized features.

Each feature is scaled by its mean and standard deviation across the offered episodes (so a yield point and a
VIX point weigh alike). Only features present on both sides are compared; each compared feature scores its
agreement exp(-z^2 / 2), z being the gap in standard deviations (1 when equal, 0.61 one deviation apart,
0.14 two apart). The raw score is the mean agreement. Coverage (features compared / all features) scales it
by its square root, so a match on few features ranks below an equally close match on many; below
MIN_COMPARED features no similarity is claimed at all."""
from __future__ import annotations

import math
import statistics

from intel.parallels.features import FEATURE_NAMES

MIN_COMPARED = 4
# a feature needs this many episodes with a value to be standardized (and compared) at all
MIN_EPISODES_PER_FEATURE = 5

Values = dict[str, "float | None"]


def scales(episode_values: list[Values]) -> dict[str, tuple[float, float]]:
    """feature -> (mean, standard deviation) across the episodes that have it."""
    out = {}
    for name in FEATURE_NAMES:
        present = [v[name] for v in episode_values if v.get(name) is not None]
        if len(present) >= MIN_EPISODES_PER_FEATURE:
            sd = statistics.stdev(present)
            if sd > 0:
                out[name] = (statistics.fmean(present), sd)
    return out


def compare(current: Values, episode: Values, feature_scales: dict[str, tuple[float, float]]) -> dict:
    """similarity in [0, 1], raw mean agreement, coverage, drivers (compared features, closest first, with
    their contribution: they sum to the similarity) and the features left out, each with why."""
    compared, left_out = [], {}
    for name in FEATURE_NAMES:
        now, then = current.get(name), episode.get(name)
        if name not in feature_scales:
            left_out[name] = f"fewer than {MIN_EPISODES_PER_FEATURE} offered episodes have it"
        elif now is None and then is None:
            left_out[name] = "absent today and in the episode"
        elif now is None:
            left_out[name] = "absent today"
        elif then is None:
            left_out[name] = "absent in the episode"
        else:
            compared.append(name)
    coverage = len(compared) / len(FEATURE_NAMES)
    if len(compared) < MIN_COMPARED:
        return {"similarity": 0.0, "raw_agreement": None, "coverage": round(coverage, 3), "drivers": [],
                "left_out": left_out, "note": f"fewer than {MIN_COMPARED} features on both sides: no similarity"}
    weight = math.sqrt(coverage) / len(compared)
    drivers = []
    for name in compared:
        z = (current[name] - episode[name]) / feature_scales[name][1]
        agreement = math.exp(-z * z / 2)
        drivers.append({"feature": name, "today": current[name], "episode": episode[name],
                        "gap_sd": round(z, 2), "agreement": round(agreement, 3),
                        "contribution": agreement * weight})
    drivers.sort(key=lambda d: (-d["agreement"], d["feature"]))
    similarity = sum(d["contribution"] for d in drivers)
    raw = similarity / math.sqrt(coverage)
    for d in drivers:
        d["contribution"] = round(d["contribution"], 4)
    return {"similarity": round(min(1.0, max(0.0, similarity)), 4), "raw_agreement": round(raw, 4),
            "coverage": round(coverage, 3), "drivers": drivers, "left_out": left_out}
