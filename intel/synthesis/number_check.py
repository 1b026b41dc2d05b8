"""The post-check on any synthesis text: every number it states must be one of the supporting figures, as a
writer would write it (rounded: 4.26 as 4.3; a fraction as a percentage: 0.81 as 81%; percentage points as basis
points: 0.06 as 6 bp; with thousands separators: 5,244.04). A sentence stating a number that is none of them is
taken out of the text and reported, so an answer never states a figure the service did not publish.

Dates (2026-11-20, 2026-11), clock times (08:30), years, tenors glued to letters (10y, 2s10s, 3m10y) and index
names ("S&P 500") are names, not figures."""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from intel.synthesis.published import Figure

ISO_DATE = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b|\b\d{1,2}:\d{2}\b")  # dates and clock times
NAMES = re.compile(r"S&P\s?500|Russell\s?2000|Nasdaq[- ]100|Stoxx\s?600|FTSE\s?100|Q[1-4]\b|\b(?:19|20)\d{2}\b")
# a number not glued to a letter, digit, dot or dash on either side; optional sign, separators and decimals
NUMBER = re.compile(r"(?<![A-Za-z0-9_.\-])[-+−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![A-Za-z0-9_\-]|\.\d)"
                    r"|(?<![A-Za-z0-9_.,\-])[-+−]?\d+(?:\.\d+)?(?![A-Za-z0-9_\-]|\.\d|,\d{3})")
UNIT = re.compile(r"\s?(%|percent\b|bps?\b|basis points?\b|pp\b)", re.IGNORECASE)
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'\[*-])")


@dataclass(frozen=True)
class Stated:
    text: str  # as written, with its unit
    value: float  # its magnitude
    decimals: int
    unit: str  # "", "%" or "bp"
    start: int
    end: int


@dataclass
class CheckResult:
    text: str
    checked: int = 0
    removed: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"numbers_checked": self.checked, "removed": self.removed}


def stated_numbers(text: str) -> list[Stated]:
    """The numbers `text` states, with their units, skipping dates, years, tenors and index names."""
    masked = NAMES.sub(lambda m: " " * len(m.group(0)), ISO_DATE.sub(lambda m: " " * len(m.group(0)), text))
    out = []
    for match in NUMBER.finditer(masked):
        raw = match.group(0)
        digits = raw.lstrip("+-−").replace(",", "")
        unit_match = UNIT.match(masked, match.end())
        unit = ""
        end = match.end()
        if unit_match:
            word = unit_match.group(1).lower()
            unit = "%" if word in ("%", "percent") else "pp" if word == "pp" else "bp"
            end = unit_match.end()
        out.append(Stated(text[match.start():end], abs(float(digits)),
                          len(digits.split(".")[1]) if "." in digits else 0, unit, match.start(), end))
    return out


def _candidates(value: float, unit: str) -> Iterable[float]:
    """What a published value may be written as, in the unit the text gives it."""
    value = abs(value)
    yield value
    if unit == "%":
        yield value * 100  # a fraction written as a percentage (0.81 -> 81%)
    if unit == "bp":
        yield value * 100  # percentage points written in basis points (0.06 -> 6 bp)
    if unit in ("%", "pp"):
        yield value / 100  # basis points written in percentage points (6 bp -> 0.06%)


def matches(stated: Stated, values: Iterable[float]) -> bool:
    """`stated` is one of `values` at the precision it is written with."""
    for value in values:
        for candidate in _candidates(value, stated.unit):
            if round(candidate, stated.decimals) == stated.value:
                # a whole number stands for a rounded figure only where the figure is not far bigger in scale:
                # "4" may be 4.26, but "0" is not every small figure
                if stated.decimals == 0 and stated.value == 0 and abs(candidate) >= 0.05:
                    continue
                return True
    return False


def check_numbers(text: str, supporting: Iterable[Figure]) -> CheckResult:
    """`text` with every sentence that states a number not among `supporting` taken out, and what was taken."""
    values = [float(f.value) for f in supporting]
    result = CheckResult(text)
    kept: list[str] = []
    for paragraph in text.split("\n"):
        sentences = [s for s in SENTENCE.split(paragraph) if s]
        kept_sentences = []
        for sentence in sentences:
            numbers = stated_numbers(sentence)
            result.checked += len(numbers)
            foreign = [n.text for n in numbers if not matches(n, values)]
            if foreign:
                result.removed.append({"numbers": foreign, "sentence": sentence.strip(),
                                       "reason": "not one of the supporting figures"})
            else:
                kept_sentences.append(sentence)
        kept.append(" ".join(kept_sentences))
    result.text = "\n".join(kept).strip()
    return result


def unsupported(text: str, supporting: Iterable[Figure]) -> list[str]:
    """The numbers of `text` that are none of the supporting figures (empty when the text holds)."""
    values = [float(f.value) for f in supporting]
    return [n.text for n in stated_numbers(text) if not matches(n, values)]
