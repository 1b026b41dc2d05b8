"""Which modules a question is about: a BM25 index (bm25s) over each module's name, category, description and the
field and signal names of its published payload, so that a module is found by the words it is described and
published with, never by a hand-kept keyword table. Built once per process for a given registry and set of
published modules (a few milliseconds of scoring per question after that)."""
from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import bm25s
import numpy as np

from intel.registry import Module

# Words that carry no topic in a question or a description.
STOPWORDS = frozenset(
    "a an and are as at be by can could do does for from has have how i if in into is it its me my of on or our "
    "should so than that the their them then there these this to up was what when where which who why will with "
    "would you your about now today right current currently latest tell give show say says market markets".split())
_WORD = re.compile(r"[a-z0-9]+")
# Field-name parts that are units or horizons (`change_1m_bp`): every module has them, so they only blur a match.
_UNIT_PARTS = re.compile(r"^(\d+[dwmy]|pct|bp|pp|pts|usd|as|of|n|x|\d+)$")


def stem(word: str) -> str:
    """A light suffix strip so that 'yields'/'yield' and 'spreads'/'spread' meet (no stemmer library is
    installed); short words stay as written."""
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + keep
    return word


def tokens(text: str) -> list[str]:
    """Lower-case words of `text` with underscores and dots as separators, stopwords out, lightly stemmed."""
    return [stem(w) for w in _WORD.findall(text.lower().replace("_", " ")) if w not in STOPWORDS]


def field_words(data, out: set[str] | None = None) -> set[str]:
    """The words of a payload's `data` keys (not its values), units and horizons left out."""
    out = set() if out is None else out
    if isinstance(data, dict):
        for key, value in data.items():
            out.update(part for part in str(key).lower().split("_") if part and not _UNIT_PARTS.match(part))
            field_words(value, out)
    elif isinstance(data, list):
        for item in data[:3]:  # a list's items share their keys
            field_words(item, out)
    return out


@dataclass(frozen=True)
class ModuleDocument:
    name: str
    category: str
    text: str  # what the index reads for this module

    @classmethod
    def of(cls, module: Module, payload: dict | None) -> ModuleDocument:
        name_words = module.name.replace("_", " ")
        parts = [name_words, name_words, module.category.replace("_", " "), module.description]
        if payload:
            parts.append(" ".join(sorted(field_words(payload.get("data") or {}))))
            parts.append(" ".join(s.get("name", "").replace("_", " ") for s in payload.get("signals") or []))
        return cls(module.name, module.category, " ".join(parts))


@dataclass(frozen=True)
class Ranked:
    name: str
    category: str
    score: float


class ModuleIndex:
    def __init__(self, documents: Iterable[ModuleDocument]):
        self.documents = tuple(documents)
        self._retriever = bm25s.BM25()
        self._retriever.index([tokens(d.text) or ["_"] for d in self.documents], show_progress=False)

    def rank(self, question: str, allowed: Callable[[ModuleDocument], bool] = lambda d: True) -> list[Ranked]:
        """Modules by BM25 score for `question`, best first; only those with a positive score."""
        words = [w for w in tokens(question) if w in self._retriever.vocab_dict]
        if not words:
            return []
        scores = np.asarray(self._retriever.get_scores(words))
        order = np.argsort(-scores, kind="stable")
        return [Ranked(self.documents[i].name, self.documents[i].category, round(float(scores[i]), 4))
                for i in order if scores[i] > 0 and allowed(self.documents[i])]


_BUILT: dict[tuple, ModuleIndex] = {}
_LOCK = threading.Lock()


def module_index(registry: dict[str, Module], published: Iterable[str],
                 payload_of: Callable[[str], dict | None]) -> ModuleIndex:
    """The index for this registry and these published modules, built on first use and reused after: the
    field names come from the published payloads, which change shape only with the code."""
    names = frozenset(published)
    key = (id(registry), tuple(sorted(registry)), tuple(sorted(names)))
    with _LOCK:
        index = _BUILT.get(key)
        if index is None:
            index = ModuleIndex(ModuleDocument.of(m, payload_of(n) if n in names else None)
                                for n, m in sorted(registry.items()))
            _BUILT.clear()  # one live index per process: a new publish set replaces the old one
            _BUILT[key] = index
    return index
