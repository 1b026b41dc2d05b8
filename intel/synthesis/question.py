"""What a question names besides its topic: tickers (valid under the module route's TICKER_PATTERN), dates, and
the asset classes it reaches (the categories of the modules it matched, so no second vocabulary is kept here)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from intel.registry import Module
from intel.tickers import extract_tickers

MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
_ISO = re.compile(r"\b(\d{4})-(\d{2})(?:-(\d{2}))?\b")
_MONTH_YEAR = re.compile(r"\b(" + "|".join(MONTHS) + r"|" + "|".join(m[:3] for m in MONTHS) + r")\.?\s+(\d{4})\b",
                         re.IGNORECASE)
_YEAR = re.compile(r"(?<![\d-])(19\d{2}|20\d{2})(?![\d-])")
# the module categories that are asset classes (the rest are views across them)
ASSET_CLASS_CATEGORIES = ("equities", "rates_credit", "macro", "volatility", "fx", "commodities", "crypto")


@dataclass(frozen=True)
class QuestionRead:
    text: str
    tickers: list[str] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)  # ISO day, month (YYYY-MM) or year as the question gives it

    def to_dict(self, asset_classes: list[str], matched: bool) -> dict:
        return {"tickers": self.tickers, "dates": self.dates, "asset_classes": asset_classes, "matched": matched}


def vocabulary_capitals(registry: dict[str, Module]) -> frozenset[str]:
    """Capitalised words the service itself uses (series ids, acronyms in module descriptions): in a question
    they name a series or a concept (CPI, VIX, DGS10), not a ticker."""
    words = {sid.upper() for m in registry.values() for sid in m.inputs}
    for module in registry.values():
        words.update(w for w in re.findall(r"\b[A-Z][A-Z0-9]{1,7}\b", module.description))
    return frozenset(words)


def dates_in(text: str) -> list[str]:
    out: list[str] = []
    for match in _ISO.finditer(text):
        year, month, day = match.groups()
        try:
            out.append(date(int(year), int(month), int(day)).isoformat() if day else f"{year}-{month}")
        except ValueError:
            continue
    rest = _ISO.sub(" ", text)
    for match in _MONTH_YEAR.finditer(rest):
        month = MONTHS.get(match.group(1).lower()) or next(
            i for name, i in MONTHS.items() if name.startswith(match.group(1).lower()[:3]))
        out.append(f"{match.group(2)}-{month:02d}")
    out += _YEAR.findall(_MONTH_YEAR.sub(" ", rest))
    return list(dict.fromkeys(out))


def read_question(text: str, registry: dict[str, Module]) -> QuestionRead:
    return QuestionRead(text, extract_tickers(text, vocabulary_capitals(registry)), dates_in(text))


def asset_classes(categories: list[str]) -> list[str]:
    """The asset classes among the matched modules' categories, in the order of the ranking."""
    return [c for c in dict.fromkeys(categories) if c in ASSET_CLASS_CATEGORIES]


def date_caveats(dates: list[str], as_of: str | None, today: date) -> list[str]:
    """A question about another day is answered with the service's latest published figures: say so."""
    out = []
    for named in dates:
        if named > today.isoformat()[: len(named)]:
            out.append(f"The question names {named}, after the market clock ({today.isoformat()}): no figure can "
                       "speak for it; this answer gives the latest published figures.")
        elif as_of and named < as_of[: len(named)]:
            out.append(f"The question names {named}; this answer gives the latest published figures (as of "
                       f"{as_of}), not the figures of that date.")
    return out
