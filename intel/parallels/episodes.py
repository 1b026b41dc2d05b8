"""The shipped episode file: where it is, the fields a reviewer curates, and the schema it must hold to."""
from __future__ import annotations

import json
from datetime import date
from functools import cache
from pathlib import Path

from intel.parallels.features import FEATURE_NAMES
from intel.parallels.tags import EVENT_TAGS, STATE_TAGS

EPISODES_FILE = Path(__file__).with_name("episodes.json")
CURATED_FIELDS = ("id", "name", "start", "end", "tags", "narrative")
NEXT_FIELDS = ("sp500_return_1m_pct", "sp500_return_3m_pct", "sp500_return_6m_pct", "sp500_return_12m_pct",
               "sp500_max_drawdown_12m_pct", "dgs10_change_12m_pp", "recession_within_12m", "gold_return_12m_pct")


@cache
def load_episodes(path: Path = EPISODES_FILE) -> dict:
    """The episode document (read once per process; it ships with the code and changes only with it)."""
    return json.loads(path.read_text())


def offered_from(episode: dict) -> date:
    """The first day an episode may be offered: its 12-month window and its own end (the narrative's last
    fact) have both passed, so replaying an earlier date never shows what came after it."""
    return max(date.fromisoformat(episode["window_end"]), date.fromisoformat(episode["end"]))


def _figure_problems(where: str, fig: object) -> list[str]:
    if not isinstance(fig, dict) or "value" not in fig:
        return [f"{where}: not a figure"]
    if fig["value"] is None:
        return [] if fig.get("reason") else [f"{where}: null without a reason"]
    return [] if fig.get("series") and fig.get("observed") else [f"{where}: value without its series and date"]


def schema_problems(doc: dict) -> list[str]:
    """Everything wrong with the document's shape; empty when it holds."""
    problems: list[str] = []
    episodes = doc.get("episodes") or []
    ids = [e.get("id") for e in episodes]
    if len(set(ids)) != len(ids):
        problems.append("episode ids repeat")
    for e in episodes:
        eid = e.get("id", "?")
        problems += [f"{eid}: no {k}" for k in (*CURATED_FIELDS, "window_end", "state", "state_tags", "next")
                     if k not in e]
        if problems:
            continue
        if date.fromisoformat(e["end"]) < date.fromisoformat(e["start"]):
            problems.append(f"{eid}: ends before it starts")
        problems += [f"{eid}: unknown event tag {t}" for t in e["tags"] if t not in EVENT_TAGS]
        problems += [f"{eid}: unknown state tag {t}" for t in e["state_tags"] if t not in STATE_TAGS]
        problems += [p for n in FEATURE_NAMES for p in _figure_problems(f"{eid}.state.{n}", e["state"].get(n))]
        problems += [p for n in NEXT_FIELDS for p in _figure_problems(f"{eid}.next.{n}", e["next"].get(n))]
    return problems
