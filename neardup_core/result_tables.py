"""The flat tables a scan's result holds: scored pairs, excerpts, groups (as flat arrays, and as
the objects a caller walks). Plain data below every stage, as :mod:`neardup_core.models` is,
and importable from it; apart from it so that a command that never makes a table (a rescan
answered by a kept report) does not make their classes either."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads with the first table: `neardup --version` needs none
    import numpy as np

__all__ = ["ExcerptTable", "Group", "GroupTable", "Member", "PairTable"]


@dataclass(frozen=True)
class PairTable:
    """Scored candidate pairs between documents (indices into ``ScanResult.documents``).

    Kept as parallel numpy arrays: 10^6 pairs cost 14 MB, and regrouping is vectorised.
    Exact copies are linked to the first of their kind by pairs with score 1.0 and ``exact`` set,
    so thousands of identical files cost thousands of pairs, not millions.
    """

    a: np.ndarray         # int32
    b: np.ndarray         # int32, a < b
    distance: np.ndarray  # uint8 SimHash Hamming distance
    jaccard: np.ndarray   # float32 MinHash Jaccard estimate (NaN when MinHash was not computed)
    score: np.ndarray     # float32 the score the threshold applies to
    exact: np.ndarray     # bool: same normalised text

    @classmethod
    def empty(cls) -> PairTable:
        import numpy as np

        return cls(np.empty(0, np.int32), np.empty(0, np.int32), np.empty(0, np.uint8),
                   np.empty(0, np.float32), np.empty(0, np.float32), np.empty(0, bool))

    def __len__(self) -> int:
        return int(self.a.shape[0])


@dataclass(frozen=True)
class ExcerptTable:
    """Excerpts: documents mostly inside another (indices into ``ScanResult.documents``).

    ``containment`` is the exact share of the part's distinct shingles found in the whole (the
    part has no more shingles than the whole), ``similarity`` the exact Jaccard of the two
    shingle sets; both computed from the texts with boilerplate set aside, down to
    EXCERPT_FLOOR so the cut can move without a rescan (:mod:`neardup_core.pairs.containment`).
    """

    part: np.ndarray         # int32
    whole: np.ndarray        # int32
    containment: np.ndarray  # float32
    similarity: np.ndarray   # float32

    @classmethod
    def empty(cls) -> ExcerptTable:
        import numpy as np

        return cls(np.empty(0, np.int32), np.empty(0, np.int32), np.empty(0, np.float32),
                   np.empty(0, np.float32))

    def __len__(self) -> int:
        return int(self.part.shape[0])


@dataclass(frozen=True, slots=True)
class Member:
    doc: int              # index into ScanResult.documents
    similarity: float     # score against the group's reference (1.0 for the reference)
    distance: int         # SimHash Hamming distance to the reference
    jaccard: float | None  # MinHash Jaccard estimate against the reference


@dataclass(frozen=True, slots=True)
class Group:
    id: int
    members: tuple[Member, ...]  # the reference first
    weakest: float               # the lowest pair score that holds the group together
    exact: bool                  # every member has the same normalised text

    @property
    def reference(self) -> int:
        return self.members[0].doc

    def __len__(self) -> int:
        return len(self.members)


@dataclass(frozen=True)
class GroupTable:
    """Groups as flat arrays (CSR layout): group ``g`` is ``members[offsets[g]:offsets[g+1]]``,
    reference first. Regrouping 100k documents must take milliseconds, which building one
    Python object per member does not; views index this directly."""

    offsets: np.ndarray     # int64, groups + 1
    members: np.ndarray     # int64 document indices
    similarity: np.ndarray  # float32 score of each member against its group's reference
    distance: np.ndarray    # uint8 SimHash distance to the reference
    jaccard: np.ndarray     # float32 MinHash estimate against the reference (NaN if none)
    weakest: np.ndarray     # float32 per group
    exact: np.ndarray       # bool per group: all members have the same normalised text

    def __len__(self) -> int:
        return int(self.offsets.shape[0] - 1)

    @cached_property
    def group_of(self) -> np.ndarray:
        """Per member position, its group number (0-based)."""
        import numpy as np

        return np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.offsets))

    def group(self, g: int) -> Group:
        lo, hi = int(self.offsets[g]), int(self.offsets[g + 1])
        ms = tuple(Member(int(i), float(sc), int(d), None if math.isnan(j) else float(j))
                   for i, sc, d, j in zip(self.members[lo:hi].tolist(),
                                          self.similarity[lo:hi].tolist(),
                                          self.distance[lo:hi].tolist(),
                                          self.jaccard[lo:hi].tolist(), strict=True))
        return Group(g + 1, ms, float(self.weakest[g]), bool(self.exact[g]))

    def all_groups(self) -> tuple[Group, ...]:
        """Every group as objects: the arrays become lists once, not once per group."""
        members = self.members.tolist()
        sim = self.similarity.tolist()
        dist = self.distance.tolist()
        jac = [None if j != j else j for j in self.jaccard.tolist()]  # NaN -> None
        offs = self.offsets.tolist()
        weakest = self.weakest.tolist()
        exact = self.exact.tolist()
        ms = list(map(Member, members, sim, dist, jac))
        return tuple(Group(g + 1, tuple(ms[offs[g]:offs[g + 1]]), weakest[g], exact[g])
                     for g in range(len(offs) - 1))

    def duplicates(self) -> int:
        return int(self.members.shape[0] - len(self))
