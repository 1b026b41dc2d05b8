"""Text that every supported store and consumer can hold, checked at the edge.

PostgreSQL refuses NUL in text (a 500 where SQLite stored it), a lone surrogate cannot be encoded as UTF-8 (so
neither stored, nor put on a queue, nor sent to an LLM or a webhook), and control characters in a name or a URL
are at best invisible and at worst a forged log line or header. Every free-text field of a request declares its type
with one of two factories (as pydantic's `constr`), its documented maximum length required:

- `safe_line(max_length, min_length=None)`: one line (names, memos, URLs, ids, codes): no C0 control
  (U+0000..U+001F), no DEL nor C1 (U+007F..U+009F), no surrogate.
- `safe_text(max_length, min_length=None)`: multi-line text (questions): the same, except that tab, line feed and
  carriage return are allowed.

The lengths sit inside the type, before the character check: given to `Field()` on an optional field, pydantic
could no longer place them on the string and answered a generic `too_long` ("at most 200 items").

Both refuse with a 422 naming the field (`type` `string_control_character` or `string_unicode`) and write their
`pattern` into the JSON Schema, so the OpenAPI document and the fuzz know which strings are accepted.

A lone surrogate sent as a JSON escape (`"\\ud800"`) never reaches a model: orjson refuses the document, and
`loads_naming_lone_surrogates` (the body parser of api/media.py) says in which field it was."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Any

import orjson
from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler, StrictStr, StringConstraints
from pydantic_core import PydanticCustomError, core_schema

from api.errors import ValidationFailed

# Regex character-class bodies, written with escapes so that the patterns built from them read the same as
# ECMA-262 (JSON Schema's), Python `re` and Rust `regex` patterns, and stay readable in the OpenAPI document.
LINE_CONTROLS = r"\x00-\x1f\x7f-\x9f"
TEXT_CONTROLS = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"  # tab, LF and CR allowed
SURROGATES = r"\ud800-\udfff"
# The documented patterns leave surrogates out: a JSON text is Unicode scalar values (a lone surrogate escape is
# refused as such, see below), and the fuzz's validator (Rust `regex`) cannot compile a surrogate range, so a
# pattern naming one was dropped and the fuzz sent control characters as "valid" data.
_SURROGATE = re.compile(f"[{SURROGATES}]")


@dataclass(frozen=True)
class Printable:
    """Pydantic metadata: the string holds no surrogate nor character of `controls` (a character-class body)."""

    controls: str
    allowed_note: str

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    @property
    def pattern(self) -> str:
        return rf"^[^{self.controls}]*$"

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler) -> dict:
        document = handler(schema)
        document["pattern"] = self.pattern
        return document

    def check(self, value: str) -> str:
        found = first_refused(value, self.controls + SURROGATES)
        if found is None:
            return value
        position, char = found
        if _SURROGATE.match(char):
            raise PydanticCustomError("string_unicode", "Lone surrogate U+{code} at position {position}: not "
                                      "valid Unicode text", {"code": f"{ord(char):04X}", "position": position})
        raise PydanticCustomError("string_control_character", "Control character U+{code} at position {position} "
                                  "is not allowed here ({note})",
                                  {"code": f"{ord(char):04X}", "position": position, "note": self.allowed_note})


def first_refused(value: str, refused: str) -> tuple[int, str] | None:
    """(position, character) of the first character of `value` in the class `refused`, or None."""
    match = re.search(f"[{refused}]", value)
    return (match.start(), match.group()) if match else None


ONE_LINE = Printable(LINE_CONTROLS, "one line of printable text")
MULTI_LINE = Printable(TEXT_CONTROLS, "printable text; tab and line breaks are allowed")
LINE_PATTERN, TEXT_PATTERN = ONE_LINE.pattern, MULTI_LINE.pattern


def safe_line(max_length: int, min_length: int | None = None) -> type[str]:
    """A one-line text field of at most `max_length` characters."""
    return Annotated[StrictStr, StringConstraints(min_length=min_length, max_length=max_length), ONE_LINE]


def safe_text(max_length: int, min_length: int | None = None) -> type[str]:
    """A multi-line text field (tab, LF and CR allowed) of at most `max_length` characters."""
    return Annotated[StrictStr, StringConstraints(min_length=min_length, max_length=max_length), MULTI_LINE]


def is_safe_line(value: str) -> bool:
    """For text read outside a model (headers, path segments)."""
    return first_refused(value, LINE_CONTROLS + SURROGATES) is None


def loads_naming_lone_surrogates(text: str) -> Any:
    """orjson's `loads`, but a document refused only for a lone surrogate escape is a 422 naming where it was.

    The standard library parses such a document (it keeps surrogates); it is used only to find the place, and
    nothing it parsed is returned, so no surrogate gets past the body parser."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as refused:
        try:
            parsed = json.loads(text)
        except ValueError:
            raise refused from None
        where = _surrogate_path(parsed)
        if where is None:  # refused for another reason the standard library tolerates (NaN, Infinity)
            raise
        raise ValidationFailed([{"loc": ["body", *where], "type": "string_unicode",
                                 "msg": "A lone surrogate (an unpaired \\ud800-\\udfff escape) is not valid Unicode "
                                        "text"}]) from None


def _surrogate_path(value: Any, path: tuple = ()) -> list | None:
    """The loc of the first string (value or key) holding a surrogate; a key is shown with it escaped."""
    if isinstance(value, str):
        return list(path) if _SURROGATE.search(value) else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if isinstance(key, str) and _SURROGATE.search(key):
            return [*path, key.encode("utf-8", "backslashreplace").decode()]
        found = _surrogate_path(item, (*path, key))
        if found is not None:
            return found
    return None
