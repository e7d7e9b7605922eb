"""Why a member is in its group when it is less similar to the reference than the threshold.

In connected and cohesive groups a file joins through any member, so a group cut at 60 % can
hold a member only 55 % like its reference, in through another member it is 82 % like. The
view says so ("via X, 82 %") instead of showing a bare 55 % under a 60 % threshold, and marking
in bulk leaves such members alone unless asked (issue 21, item 6). No Qt here: the lookups run
on the result's pair arrays, once per member asked about, and are kept until the next result.
"""

from __future__ import annotations

import os

import numpy as np

from neardup_core.result import ScanResult

#: Scores are float32: a member "at" the threshold must not read as below it.
EPSILON = 1e-6


class Links:
    """The strongest link of each member into its group, asked for lazily."""

    def __init__(self, result: ScanResult | None) -> None:
        self._result = result
        self._via: dict[int, tuple[int, float] | None] = {}
        self._missing: dict[str, bool] = {}

    def below_cut(self, similarity: float) -> bool:
        """A member's score against its reference is under the threshold the user set."""
        r = self._result
        return r is not None and similarity < r.threshold - EPSILON

    def via(self, doc: int, group_docs: np.ndarray) -> tuple[int, float] | None:
        """The other member of ``group_docs`` that ``doc`` is most similar to (its way into
        the group), with the score; None when no pair with another member is known."""
        if doc in self._via:
            return self._via[doc]
        found: tuple[int, float] | None = None
        r = self._result
        if r is not None and len(r.pairs):
            pairs = r.pairs
            by_doc = r.computed("pairs_by_document")  # prepared in the scan's thread
            if by_doc is not None:
                start, index = by_doc  # type: ignore[misc]
                hit = np.sort(index[int(start[doc]):int(start[doc + 1])])
            else:
                hit = np.flatnonzero((pairs.a == doc) | (pairs.b == doc))
            if hit.size:
                other = np.where(pairs.a[hit] == doc, pairs.b[hit], pairs.a[hit])
                inside = np.isin(other, group_docs)
                if inside.any():
                    scores = pairs.score[hit][inside]
                    best = int(np.argmax(scores))
                    found = (int(other[inside][best]), float(scores[best]))
        self._via[doc] = found
        return found

    def missing(self, path: str) -> bool:
        """The file is no longer on disk (deleted or moved outside the app); asked once per
        result, for references, so a view does not stat every row it paints."""
        if path not in self._missing:
            self._missing[path] = not os.path.lexists(path)
        return self._missing[path]
