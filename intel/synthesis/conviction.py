"""The conviction of an answer, 0-100: how strongly and how unanimously the consulted modules' signals point one
way, scaled by the share of the wanted modules that could be read. It is a score about the answer, computed from
the published signals' directions and confidences, not a market figure."""
from __future__ import annotations

DIRECTIONS = {"bullish": 1, "bearish": -1, "neutral": 0}
LEAN = 0.2  # a net direction below this either way is "mixed"

METHOD = ("net = sum(direction x confidence) / sum(confidence) over the consulted modules' signals (bullish +1, "
          "bearish -1, neutral 0); score = round(100 x |net| x coverage), coverage = modules read / modules wanted; "
          f"stance bullish or bearish where |net| >= {LEAN}, else mixed")


def conviction(signals: list[dict], read: int, wanted: int) -> dict:
    weights = [(DIRECTIONS.get(s.get("direction"), 0), float(s.get("confidence") or 0.0)) for s in signals]
    total = sum(c for _, c in weights)
    net = sum(d * c for d, c in weights) / total if total else 0.0
    coverage = read / wanted if wanted else 0.0
    stance = "bullish" if net >= LEAN else "bearish" if net <= -LEAN else "mixed"
    counts = {name: sum(1 for s in signals if s.get("direction") == name) for name in DIRECTIONS}
    return {"score": round(100 * abs(net) * min(coverage, 1.0)), "stance": stance, "net_direction": round(net, 3),
            "coverage": round(min(coverage, 1.0), 3), "signals": counts, "method": METHOD}
