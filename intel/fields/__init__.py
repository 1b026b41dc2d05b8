"""The field dictionary: every field a module publishes in `data`, declared once with its type, its unit and one
line of meaning (`intel/fields/<module>.json`, written by `scripts/field_dictionary.py` from the modules' own
provenance and reviewed by hand). From it come each module's response schema in /openapi.json and its MCP tool's
`outputSchema`; the contract test (tests/intel/test_field_dictionary.py) holds every module to it.

A path names a field as provenance does (`components.volatility.score`), with `[]` for the items of a list
(`upcoming[].days_until`, `sectors_above[]`). Objects are implied by their fields; a list is declared itself and,
when its items are scalars, by `path[]`. `optional` marks a field some states of the market leave out (a rule
that only reports while it holds, a series that began late). Any figure may be null where its inputs do not
allow it (too little history, a stale source): the schemas say so, the dictionary does not repeat it."""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

FOLDER = Path(__file__).parent
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
JSON_TYPES = {"integer", "number", "string", "boolean", "array", "object"}


@dataclass(frozen=True)
class Field:
    type: str  # a JSON Schema type: integer, number, string, boolean, array, object
    meaning: str
    unit: str = ""  # for figures: percent, basis points, index points, standard deviations, ...; else empty
    optional: bool = False
    format: str = ""  # "date" for ISO dates


def value_type(value) -> str | None:
    """The JSON type of a published value (None for null)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, (list, tuple)) else "object"


def published(data: dict) -> dict[str, list]:
    """Every field path in `data` with the values it holds (one per list item)."""
    out: dict[str, list] = {}

    def walk(value, path: str) -> None:
        if isinstance(value, dict):
            if not value and path:
                out.setdefault(path, []).append(value)
            for key, item in value.items():
                walk(item, f"{path}.{key}" if path else str(key))
        elif isinstance(value, (list, tuple)):
            out.setdefault(path, []).append(value)
            for item in value:
                walk(item, f"{path}[]")
        else:
            out.setdefault(path, []).append(value)

    walk(data, "")
    return out


def fits(declared: str, value) -> bool:
    seen = value_type(value)
    return seen is None or seen == declared or (declared == "number" and seen == "integer")


def contract_errors(data: dict, fields: dict[str, Field]) -> list[str]:
    """What breaks the dictionary in one payload's `data`: a field published but not declared, a value of another
    type, a field declared required but absent."""
    seen = published(data)
    errors = [f"{path}: published, not declared" for path, values in seen.items()
              if path not in fields and not _parent_of(path, fields) and not _null_holder(path, values, fields)]
    errors += [f"{path}: {value!r} is not {fields[path].type}" for path, values in seen.items() if path in fields
               for value in values if not fits(fields[path].type, value)]
    errors += [f"{path}: declared required, absent" for path, field in fields.items()
               if not field.optional and missing(data, path)]
    return errors


def missing(data: dict, path: str) -> bool:
    """Some object on the way to the field lacks the next key (in any item of a list on the way). An empty list or
    a null holds nothing to lack."""
    def lacks(value, parts: list[str]) -> bool:
        if not parts or not isinstance(value, dict):
            return False
        name = parts[0].removesuffix("[]")
        if name not in value:
            return True
        if parts[0].endswith("[]"):
            return any(lacks(item, parts[1:]) for item in value[name] or [])
        return lacks(value[name], parts[1:])

    return lacks(data, path.split("."))


def holds_fields(path: str, paths) -> bool:
    """Some path in `paths` lies under `path`: it is an object or a list of fields."""
    return any(p.startswith((f"{path}.", f"{path}[]")) for p in paths)


def _null_holder(path: str, values: list, fields: dict[str, Field]) -> bool:
    """A null where an object or a list of declared fields may stand."""
    return all(v is None for v in values) and holds_fields(path, fields)


def _parent_of(path: str, fields: dict[str, Field]) -> bool:
    """An object declared empty-able (type object) whose keys are not listed covers what it holds."""
    return any(path.startswith(p + ".") for p, f in fields.items() if f.type == "object")


@functools.cache
def dictionary(module: str) -> dict[str, Field]:
    """The module's declared fields ({} for a module not yet declared)."""
    path = FOLDER / f"{module}.json"
    if not path.exists():
        return {}
    return {name: Field(**entry) for name, entry in json.loads(path.read_text()).items()}


def data_schema(fields: dict[str, Field]) -> dict:
    """The JSON Schema of a module's `data`: its fields typed and described, any figure nullable."""
    root: dict = {"type": "object", "properties": {}}
    for path, field in sorted(fields.items()):
        node = root
        parts = path.split(".")
        for depth, part in enumerate(parts):
            last = depth == len(parts) - 1
            listed = part.endswith("[]")
            name = part[:-2] if listed else part
            if name:
                holder = node.setdefault("properties", {})
                if not last or listed:  # an object or a list of fields may be null, as a figure may
                    node = holder.setdefault(name, {"type": ["array" if listed else "object", "null"]})
                else:
                    node = holder.setdefault(name, {})
                    node.update(_leaf(field))
            if listed:
                node = node.setdefault("items", {} if last else {"type": "object"})
                if last:
                    node.update(_leaf(field))
    _fill_required(root, fields)
    return root


def _leaf(field: Field) -> dict:
    schema = {"type": [field.type, "null"], "description": field.meaning + (f" ({field.unit})" if field.unit else "")}
    if field.format:
        schema["format"] = field.format
    return schema


def _fill_required(root: dict, fields: dict[str, Field]) -> None:
    """Each object requires the children every observed state published (the non-optional fields, and objects
    holding at least one of them)."""
    for path, field in fields.items():
        if field.optional:
            continue
        node = root
        for part in path.split("."):
            listed = part.endswith("[]")
            name = part[:-2] if listed else part
            if name:
                required = node.setdefault("required", [])
                if name not in required:
                    required.append(name)
                node = node["properties"][name]
            if listed:
                node = node["items"]
