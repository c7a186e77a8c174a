"""`find_tools`' search: Okapi BM25 over each tool's name, title and description, in the
process, without a model call. Deterministic: equal scores keep the catalogue's order."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Final

K1: Final = 1.2
B: Final = 0.75
MAX_TEXT: Final = 4000
"""Characters of a tool's text that are indexed (a server's long description costs no more)."""
MAX_QUERY: Final = 500
"""Characters of a query that are read."""

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    """Lower-case words, `snake_case` and `camelCase` split, a plural's `s` dropped."""
    found = _WORD.findall(_CAMEL.sub(r"\1 \2", text).lower())
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in found]


class Index:
    """BM25 over `texts`; `top(query, limit)` gives the positions of the best matches."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._counts = [Counter(words(text[:MAX_TEXT])) for text in texts]
        self._lengths = [sum(counts.values()) for counts in self._counts]
        self._average = (sum(self._lengths) / len(self._lengths)) if self._lengths else 0.0
        documents = Counter(word for counts in self._counts for word in counts)
        total = len(self._counts)
        self._idf = {word: math.log((total - n + 0.5) / (n + 0.5) + 1) for word, n in documents.items()}

    def top(self, query: str, limit: int) -> list[int]:
        """The positions of at most `limit` texts that share a word with `query`, best first."""
        asked = [word for word in dict.fromkeys(words(query[:MAX_QUERY])) if word in self._idf]
        if not asked:
            return []
        scores: list[tuple[float, int]] = []
        average = self._average or 1.0
        for position, (counts, length) in enumerate(zip(self._counts, self._lengths, strict=True)):
            score = 0.0
            for word in asked:
                if (n := counts.get(word)) is not None:
                    score += self._idf[word] * n * (K1 + 1) / (n + K1 * (1 - B + B * length / average))
            if score > 0:
                scores.append((-score, position))
        scores.sort()
        return [position for _, position in scores[:limit]]
