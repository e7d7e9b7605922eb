"""The last result of a scan, kept in the fingerprint cache: reopening an unchanged folder
costs a walk, not a read.

The per-file cache already spares a rescan every read and every fingerprint, but it still turns
10,000 cache rows into 10,000 fingerprints, pairs them again and ranks every file again: about a
second for 10,000 files, most of it Python per row. Most rescans are of a folder that did not
change at all (the app opened again, a scan repeated at another threshold), so the whole
outcome is kept as a handful of arrays, found by *what was scanned*:

* ``snapshot_key`` -- the roots and every option that decides documents and pairs (the
  threshold and the group mode do not: groups are remade from the pairs on every load);
* ``folder_state`` -- a digest of what the walk found: every file's path, size and
  modification time, and every problem the walk met, in walk order.

A snapshot is used only when both match exactly; anything else (one file touched, added,
removed, a folder that became readable) takes the per-file cache path, which rereads only what
changed. Runs that must not be replayed are never stored: cancelled or cut-short runs, runs
where a file could not be read for a passing reason (permissions, a file that vanished, a dead
worker) or changed while it was read, and runs whose cache failed.

The payload is the one the results file uses (:mod:`neardup_core.store.payload`: no pickle, a
JSON header declaring each array's dtype, shape and place, 64-byte aligned arrays loaded as
read-only views, an xxh3 digest), with format ``neardup-snapshot`` and the facts only a replay
needs: ranks, text classes and the groups shown. ``unpack`` checks the digest and every shape
and index it relies on and raises ``ValueError`` otherwise; the caller then scans as if there
were no snapshot.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from neardup_core.models import (
    Document,
    ExcerptTable,
    GroupTable,
    PairTable,
    Problem,
)
from neardup_core.store import payload
from neardup_core.store.folder_state import SNAPSHOT_VERSION, folder_state, snapshot_key
from neardup_core.store.payload import Outcome, column, outcome_arrays, outcome_from


@dataclass(frozen=True)
class Snapshot:
    """What a scan found after its walk, ready to become a ScanResult again."""

    documents: tuple[Document, ...]
    problems: tuple[Problem, ...]   # found while reading (the walk's are found again)
    simhash: np.ndarray
    minhash: np.ndarray
    pairs: PairTable
    notes: tuple[str, ...] = ()     # said while pairing (boilerplate, crowded buckets)
    stats: dict = field(default_factory=dict)
    rank: np.ndarray | None = None        # ScanResult.auto_rank for these documents
    text_class: np.ndarray | None = None  # ScanResult.text_class
    #: The groups the scan showed, with the threshold, group mode and grouping code
    #: (:func:`grouping_code`) they were made with: a rescan with all three the same shows them
    #: again without regrouping.
    groups: tuple[float, str, str, GroupTable] | None = None
    excerpts: ExcerptTable = field(default_factory=ExcerptTable.empty)


# -- payload ------------------------------------------------------------------------------------
SNAPSHOT_FORMAT = "neardup-snapshot"


def pack(snap: Snapshot) -> bytes:
    """The snapshot as a payload (:mod:`neardup_core.store.payload`), the results file's
    layout with the facts only a replay needs: ranks, text classes and the groups shown."""
    arrays, meta = outcome_arrays(Outcome(
        documents=snap.documents, problems=snap.problems, simhash=snap.simhash,
        minhash=snap.minhash, pairs=snap.pairs, notes=snap.notes, stats=snap.stats,
        excerpts=snap.excerpts))
    if snap.rank is not None:
        arrays["rank"] = np.asarray(snap.rank, dtype="<i8")
    if snap.text_class is not None:
        arrays["text_class"] = np.asarray(snap.text_class, dtype="<i8")
    if snap.groups is not None:
        threshold, mode, code, table = snap.groups
        meta["groups"] = [threshold, mode, code]
        for name, dtype in _GROUP_COLUMNS:
            arrays[f"group_{name}"] = np.ascontiguousarray(getattr(table, name), dtype=dtype)
    return payload.pack(SNAPSHOT_FORMAT, SNAPSHOT_VERSION, arrays, meta)


_GROUP_COLUMNS = (("offsets", np.dtype("<i8")), ("members", np.dtype("<i8")),
                  ("similarity", np.dtype("<f4")), ("distance", np.dtype("u1")),
                  ("jaccard", np.dtype("<f4")), ("weakest", np.dtype("<f4")),
                  ("exact", np.dtype("bool")))


#: The modules whose code decides the groups of a result (paths under neardup_core/).
_GROUPING_SOURCES = ("grouping/groups", "grouping/edges", "grouping/connected", "grouping/strict",
                     "grouping/cohesive", "grouping/reference", "grouping/table",
                     "grouping/regroup", "grouping/forest", "pairs/scoring", "arrays", "result",
                     "models")


def grouping_code() -> str | None:
    """A digest of the code groups are made by (kept groups made by other code are remade), or
    None when the source cannot be read: then groups are never kept."""
    from neardup_core.tables import source_digest

    core = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # not imported: SciPy
    digests = [source_digest(os.path.join(core, *name.split("/")) + ".py")
               for name in _GROUPING_SOURCES]
    return None if None in digests else "|".join(d or "" for d in digests)


def _groups(meta: dict, a: dict[str, np.ndarray], n: int
            ) -> tuple[float, str, str, GroupTable] | None:
    """The kept groups, checked as far as views rely on them (members are documents, every
    group is at least two of them, columns agree in length)."""
    if "groups" not in meta:
        return None
    kept = meta["groups"]
    if not isinstance(kept, list) or len(kept) != 3 or not isinstance(kept[0], int | float) \
            or not isinstance(kept[1], str) or not isinstance(kept[2], str):
        raise ValueError("snapshot groups are malformed")
    offsets = column(a, "group_offsets", _GROUP_COLUMNS[0][1], a.get("group_offsets",
                                                                     np.empty(0)).shape)
    groups = offsets.shape[0] - 1
    members = column(a, "group_members", _GROUP_COLUMNS[1][1],
                     a.get("group_members", np.empty(0)).shape)
    if offsets.ndim != 1 or members.ndim != 1 or groups < 0 or offsets[0] != 0 or \
            offsets[-1] != members.shape[0] or np.any(np.diff(offsets) < 2):
        raise ValueError("snapshot groups are malformed")
    if members.shape[0] and (members.min() < 0 or members.max() >= n):
        raise ValueError("snapshot groups point past the documents")
    cols = {"offsets": offsets, "members": members}
    for name, dtype in _GROUP_COLUMNS[2:]:
        shape = (groups,) if name in ("weakest", "exact") else members.shape
        try:
            cols[name] = column(a, f"group_{name}", dtype, shape)
        except ValueError:
            raise ValueError(f"snapshot group column {name} does not match the groups") from None
    return float(kept[0]), kept[1], kept[2], GroupTable(**cols)


def unpack(blob: bytes) -> Snapshot:
    """The snapshot in ``blob``; ``ValueError`` when it is not one this version wrote intact."""
    header, a = payload.unpack(blob)
    if header.get("format") != SNAPSHOT_FORMAT or header.get("version") != SNAPSHOT_VERSION:
        raise ValueError("snapshot of another version")
    meta = header["meta"]
    try:
        found = outcome_from(meta, a)
        n = len(found.documents)
        rank = column(a, "rank", "<i8", (n,)) if "rank" in a else None
        text_class = column(a, "text_class", "<i8", (n,)) if "text_class" in a else None
        return Snapshot(documents=found.documents, problems=found.problems,
                        simhash=found.simhash, minhash=found.minhash, pairs=found.pairs,
                        notes=found.notes, stats=found.stats, rank=rank, text_class=text_class,
                        groups=_groups(meta, a, n), excerpts=found.excerpts)
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"damaged snapshot: {type(exc).__name__}: {exc}") from None


__all__ = ["SNAPSHOT_VERSION", "Snapshot", "folder_state", "grouping_code", "pack", "snapshot_key",
           "unpack"]
