"""The `trading_signals` product: today's signal per strategy and instrument, each with the edge its rule has
shown in the walk-forward back-test over the same history (intel/signals/backtest.py), risk parameters, the
rationale with the modules behind it, and the data it rests on. `select` shapes it for one request."""
from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from intel.frames import Frames
from intel.signals.backtest import edge_statistics, instrument_returns, risk_parameters
from intel.signals.combine import latest
from intel.signals.instruments import INSTRUMENTS, UNAVAILABLE
from intel.signals.panel import Panel
from intel.signals.registry import Strategy, direction
from intel.signals.strategies import strategies

NAME = "trading_signals"
ALL = "all"
DEFAULT_MIN_EDGE = None  # no filter unless asked: every signal, with its measured edge, is shown by default
EDGE_UNIT = "fractional return over the signal's horizon (0.01 = 1 percentage point)"


def input_series() -> tuple[str, ...]:
    """Every series a strategy reads or trades, plus the trading-day calendar's."""
    from intel.regime_history import CALENDAR_SERIES

    ids = [*CALENDAR_SERIES, *INSTRUMENTS]
    for strategy in strategies().values():
        ids += [*strategy.inputs, *strategy.instruments]
    return tuple(dict.fromkeys(ids))


def strategy_signals(panel: Panel, strategy: Strategy, as_of: str, forward: dict) -> tuple[list[dict], list[str]]:
    """Today's signals of one strategy (and the instruments it could not score: not held)."""
    scores, readings = strategy.rule(panel), strategy.explain(panel)
    out, missing = [], []
    for inst_id in strategy.instruments:
        instrument = INSTRUMENTS[inst_id]
        if not panel.has(inst_id):
            missing.append(inst_id)
            continue
        key = (inst_id, strategy.horizon)
        if key not in forward:
            forward[key] = instrument_returns(panel, instrument, strategy.horizon)
        s = scores[inst_id]
        score = latest(s)
        side = direction(score, strategy.threshold)
        sides = {k: edge_statistics(s, forward[key], strategy.threshold, strategy.horizon, k, panel.grid)
                 for k in ("long", "short", "flat")}
        decided = bool(np.isfinite(score))
        out.append({
            "id": f"{strategy.name}:{inst_id}:{as_of}", "strategy": strategy.name, "instrument": inst_id,
            "instrument_name": instrument.name, "direction": side,
            "confidence": round(min(1.0, abs(score)), 3) if decided else 0.0,
            "score": round(score, 3) if decided else None, "threshold": strategy.threshold,
            "horizon_trading_days": strategy.horizon,
            "edge_estimate": {**sides[side], "unit": EDGE_UNIT} if decided else None,
            "backtest": sides,
            "risk": risk_parameters(panel, instrument, strategy.horizon, side),
            "rationale": {"summary": _summary(strategy, inst_id, side, score, sides[side]),
                          "readings": readings, "modules": list(strategy.modules)},
            "as_of": as_of,
        })
    return out, missing


def _summary(strategy: Strategy, inst_id: str, side: str, score: float, stats: dict) -> str:
    if not np.isfinite(score):
        return f"{strategy.name} cannot score {inst_id} today: too few of its inputs were published recently enough."
    edge = stats["edge"]
    if edge is None:
        measured = "the rule never decided this way in the back-test: no edge measured"
    elif side == "flat":
        measured = (f"on the back-test's flat days the {strategy.horizon}-day forward return differed from the "
                    f"unconditional mean by {edge:+.4f} (N {stats['n']} days, t {stats['t_stat']})")
    else:
        measured = (f"in the back-test this side's {strategy.horizon}-day forward return beat the unconditional mean "
                    f"by {edge:+.4f} (N {stats['n']} days, t {stats['t_stat']}, hit rate {stats['hit_rate']})")
    return (f"{strategy.description}: score {score:+.2f} against a threshold of {strategy.threshold} gives "
            f"{side} {inst_id}; {measured}.")


def trading_signals(frames: Frames, simulated: bool) -> dict:
    """The product as of `frames.now` from the frames' series (nothing in them dated after it)."""
    panel = Panel(frames)
    as_of = frames.now.isoformat()
    forward: dict = {}
    signals, missing = [], {}
    for strategy in strategies().values():
        made, lacking = strategy_signals(panel, strategy, as_of, forward)
        signals += made
        if lacking:
            missing[strategy.name] = lacking
    used = [s for s in input_series() if panel.has(s)]
    clock = frames.clock or datetime.now(UTC)
    return {
        "product": NAME, "as_of": as_of, "generated_at": clock.isoformat(timespec="seconds"),
        "data_source": frames.data_source, "simulated": simulated,
        "history": {"first_decision_day": panel.days[0].isoformat() if panel.days else None,
                    "decision_days": len(panel), "simulated": simulated},
        "signals": signals,
        "strategies": {s.name: {"description": s.description, "horizon_trading_days": s.horizon,
                                "threshold": s.threshold, "modules": list(s.modules), "inputs": list(s.inputs),
                                "instruments": list(s.instruments)} for s in strategies().values()},
        "instruments": {i.id: {"name": i.name, "return_method": i.return_method} for i in INSTRUMENTS.values()},
        "unavailable": {**UNAVAILABLE, **{f"{k}:{i}": "the warehouse holds no observations of it"
                                          for k, ids in missing.items() for i in ids}},
        "methodology": _methodology(simulated),
        "data_sources": {"series": [{"id": s, "last_published": str(panel.last_published(s))} for s in used],
                         "missing": [s for s in input_series() if not panel.has(s)]},
    }


def _methodology(simulated: bool) -> dict:
    from intel.signals import backtest, panel

    return {"decisions": panel.__doc__.strip(), "edge": backtest.__doc__.strip(),
            "direction": "long when the score reaches the strategy's threshold, short at minus it, flat between; "
                         "confidence is the score's size (0 to 1), not a probability",
            "history": ("measured on the simulated history of the sim provider, not on market data"
                        if simulated else "measured on the warehouse's stored market history")}


def select(payload: dict, strategy: str = ALL, min_edge: float | None = DEFAULT_MIN_EDGE) -> dict:
    """The signals of `strategy` (or all) whose absolute edge estimate is at least `min_edge`."""
    keep = [s for s in payload["signals"]
            if (strategy == ALL or s["strategy"] == strategy)
            and (min_edge is None or (s["edge_estimate"] and s["edge_estimate"]["edge"] is not None
                                      and abs(s["edge_estimate"]["edge"]) >= min_edge))]
    return {**payload, "signals": keep, "filters": {"strategy": strategy, "min_edge": min_edge,
                                                    "matched": len(keep), "of": len(payload["signals"])}}
