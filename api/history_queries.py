"""`/intelligence/{module}/history`: a module's figures at each step of a past range, each the answer at 00:00 UTC of
its day (as `as_of=<day>`), read from the stored history (warehouse/history_store.py); days not stored yet are
computed on demand from the analyst copy, up to MI_HISTORY_COMPUTE_LIMIT, else the query is refused naming the
backfill that would serve it. Priced per step with a ceiling (charging/prices.py `history`), charged once the
answer is ready: a refused or failed query costs nothing."""
from __future__ import annotations

import asyncio
from datetime import date, timedelta
from typing import TYPE_CHECKING

import orjson

from api.errors import APIError, invalid
from api.past_answers import PastAnswers
from api.product_queries import charge_and_meter
from api.schemas import HISTORY_MAX_STEPS, HistoryQuery
from api.usage import UsageRecorder
from charging.attempt import Attempt, Payer
from intel.fields import dictionary
from intel.registry import Module
from intel.sessions import weekdays
from warehouse.duckdb_store import Warehouse
from warehouse.history_store import SIGNALS, Point, point_of
from warehouse.time_travel import payloads_on

if TYPE_CHECKING:
    from api.services import Services

SCALARS = {"number", "integer", "string", "boolean"}


def steps(first: date, last: date, step: str) -> list[date]:
    """The days of a range at `step`: every weekday, each Monday, or the first weekday of each month."""
    days = weekdays(first, last)
    if step == "week":
        return [day for day in days if day.weekday() == 0]
    if step == "month":
        return [day for day in days if day == _first_weekday(day)]
    return days


def _first_weekday(day: date) -> date:
    first = day.replace(day=1)
    return first + timedelta(days=max(0, 7 - first.weekday()) if first.weekday() >= 5 else 0)


def scalar_fields(module: str) -> dict[str, str]:
    """The module's figures a history can carry (one scalar a day), by path, with their JSON type."""
    return {path: field.type for path, field in dictionary(module).items()
            if field.type in SCALARS and "[]" not in path}


class HistoryQueries:
    def __init__(self, services: Services, usage: UsageRecorder, past: PastAnswers):
        self.services = services
        self.usage = usage
        self.past = past  # its stored history, and the analyst copy the days not stored are computed from

    async def serve(self, payer: Payer, request_id: str, module: Module, query: HistoryQuery) -> tuple[bytes, bool]:
        """The answer's body and whether the usage gate was taken. ValidationFailed (422) and APIError before
        anything is charged."""
        days, fields = self._checked(module, query)
        source = self.services.data_source
        stored = await asyncio.to_thread(self.past.history.points, module.name, days, source, fields)
        missing = [day for day in days if day not in stored]
        limit = self.services.settings.history_compute_limit
        if len(missing) > limit:
            raise APIError(
                503, "not_backfilled",
                f"{len(missing)} of the {len(days)} steps are not in the stored history (from {missing[0]} to "
                f"{missing[-1]}), more than the {limit} computed on demand. Backfill `module_history` over those "
                f"days (the Dagster UI, or `marketintel history backfill --from {missing[0]} --to {missing[-1]}`), "
                "or ask for a shorter range. Nothing was charged.",
                missing_steps=len(missing), missing_from=missing[0].isoformat(), missing_to=missing[-1].isoformat())
        computed = await asyncio.to_thread(self._computed, module, missing, source, fields) if missing else {}
        points = {**stored, **computed}
        kinds = scalar_fields(module.name)
        body = {
            "module": module.name, "from": query.from_.isoformat(), "to": query.to.isoformat(), "step": query.step,
            "fields": list(fields) if fields is not None else None, "time_travel": True,
            "steps": len(days), "computed_on_demand": len(computed),
            "points": [_point(points[day], kinds) for day in days]}
        meta, gate_taken = await charge_and_meter(
            self.services, self.usage, Attempt(payer, self.services.prices.history(module.name, len(days)), request_id),
            {"data_source": source, "simulated": self.services.simulated})
        return orjson.dumps({**body, "_meta": meta}), gate_taken

    def _checked(self, module: Module, query: HistoryQuery) -> tuple[list[date], tuple[str, ...] | None]:
        if module.takes_ticker:
            raise invalid(["path", "module_name"], f"'{module.name}' is computed per ticker on demand; a history is "
                          "offered for the other modules")
        today = self.services.clock.now().date()
        if query.to < query.from_:
            raise invalid(["query", "to"], f"{query.to} is before from ({query.from_})")
        if query.to > today:
            raise invalid(["query", "to"], f"{query.to} is after the market clock's date ({today})")
        days = steps(query.from_, query.to, query.step)
        if not days:
            raise invalid(["query", "from"], f"no {query.step} step falls between {query.from_} and {query.to}")
        if len(days) > HISTORY_MAX_STEPS:
            raise invalid(["query", "to"], f"{len(days)} steps; at most {HISTORY_MAX_STEPS} a query")
        if query.fields is None:
            return days, None
        asked = tuple(dict.fromkeys(query.fields.split(",")))
        known = scalar_fields(module.name)
        unknown = [name for name in asked if name not in known and name != SIGNALS]
        if unknown:
            raise invalid(["query", "fields"], f"not a scalar figure of '{module.name}': {', '.join(unknown)}; "
                          f"it has {', '.join(sorted(known))} and `{SIGNALS}`")
        return days, asked

    def _computed(self, module: Module, days: list[date], source: str,
                  fields: tuple[str, ...] | None) -> dict[date, Point]:
        """The days not stored, computed as a history run would (the same file, the same code)."""
        with Warehouse(self.past.analyst_copy(), read_only=True) as store:
            return {day: point_of(day, payloads_on(store, day, [module], source)[module.name], fields) for day in days}


def _point(point: Point, kinds: dict[str, str]) -> dict:
    """A step as answered: its day, the latest observation it read, its figures (booleans and integers as declared,
    signals as a list), or why the module had no answer that day."""
    if point.figures is None:
        return {"as_of": point.as_of.isoformat(), "data_as_of": None, "values": None, "no_answer": point.reason}
    values = {}
    for name, value in point.figures.items():
        kind = kinds.get(name)
        if name == SIGNALS:
            continue
        if value is not None and kind == "boolean":
            value = bool(value)
        elif value is not None and kind == "integer":
            value = int(value)
        elif value is not None and kind == "number":
            value = float(value)
        values[name] = value
    out = {"as_of": point.as_of.isoformat(),
           "data_as_of": point.data_as_of.isoformat() if point.data_as_of else None, "values": values}
    if SIGNALS in point.figures:
        out["signals"] = orjson.loads(point.figures[SIGNALS]) if point.figures[SIGNALS] else []
    return out
