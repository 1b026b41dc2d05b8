"""Historical parallels: today's market state against 30 curated episodes (1929-2024), what followed each."""
from intel.parallels.episodes import load_episodes
from intel.parallels.view import CONDITION_TAGS, DEFAULT_TOP_N, MAX_TOP_N, parallels_view, select

__all__ = ["CONDITION_TAGS", "DEFAULT_TOP_N", "MAX_TOP_N", "load_episodes", "parallels_view", "select"]
