"""Numbers in prose, and the published figures they are.

The writer keeps a module's sentence (from its summary or a signal's reason) only when every number in it is
exactly one of the module's published figures: the same value (the sentence may state a fall as "down 2.1"
for -2.1), cited by module and field. A sentence holding anything else (a rounded figure, a count the data
does not hold) is left out rather than repeated unverified.

What counts as a number follows the modules' own summary contract (tests/intel/modules/builders.py): ISO
dates, "S&P 500" and digits inside words or hyphenated labels ("10-year", "2s10s", "DGS10") are names."""
from __future__ import annotations

import math
import re
from collections.abc import Iterator

from intel.synthesis.published import Figure

NUMBER = re.compile(r"(?<![A-Za-z0-9_.\-])-?\d+(?:\.\d+)?(?!\.?[A-Za-z0-9_\-])")
ISO_DATE = re.compile(r"\d{4}-\d{2}(?:-\d{2})?")
NAMES_WITH_DIGITS = ("S&P 500",)
FALL_WORDS = frozenset({"down", "fell", "falls", "dropped", "declined", "decreased", "lost", "loses", "narrowed",
                        "minus", "below", "tighter"})
_WORD = re.compile(r"[a-z]+")
_TRIVIAL = frozenset({"pct", "bp", "pp", "the", "of", "a", "to", "vs", "d", "w", "m", "y"})
SENTENCE_END = re.compile(r"(?<=[.;])\s+(?=[A-Z])")


def numbers_in(text: str) -> Iterator[tuple[str, int]]:
    """Each number in `text` as written, with its offset (dates and names blanked first, offsets kept)."""
    blanked = ISO_DATE.sub(lambda m: " " * len(m.group(0)), text)
    for name in NAMES_WITH_DIGITS:
        blanked = blanked.replace(name, " " * len(name))
    for match in NUMBER.finditer(blanked):
        yield match.group(0), match.start()


def matches(token: str, value: float | int) -> bool:
    """`token` states `value` exactly, or its size (a sign word carries the sign)."""
    number = float(token)
    return math.isclose(number, float(value), rel_tol=0, abs_tol=1e-12) or (
        number >= 0 and math.isclose(number, abs(float(value)), rel_tol=0, abs_tol=1e-12))


def cite(sentence: str, candidates: list[Figure]) -> list[Figure] | None:
    """The figures the sentence's numbers are, or None if any number is not exactly one of `candidates`. Among
    equal values the figure whose field shares most words with the sentence wins; a whole number that no
    field names (a label such as "the worst 5%") is not cited by value alone."""
    words = set(_WORD.findall(sentence.lower()))
    cited = []
    for token, start in numbers_in(sentence):
        fall = _word_before(sentence, start) in FALL_WORDS
        same = [f for f in candidates if matches(token, f.value) and not (fall and f.value > 0)]
        if not same:
            return None
        scored = sorted(same, key=lambda f: -len(_field_words(f.field) & words))
        best = scored[0]
        if "." not in token and not (_field_words(best.field) & words):
            return None
        cited.append(best)
    return cited


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text or "") if s.strip()]


def written(value: float | int) -> str:
    """A published value as the text writes it: exactly as published (no rounding, no thousands separator)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return repr(value)
    text = repr(value)
    return text if "e" not in text else f"{value:.12f}".rstrip("0")


def _word_before(text: str, start: int) -> str:
    before = text[:start].split()
    return before[-1].lower().strip("(,") if before else ""


def _field_words(field: str) -> set[str]:
    return {w for w in _WORD.findall(field.lower().replace("_", " ")) if w not in _TRIVIAL}
