"""The pair-finding stage of a scan: documents' fingerprints in, the table of scored pairs out.

The exact tier first (identical normalised texts collapse to their first document, linked to
it as a star), then candidate pairs among the distinct texts from MinHash LSH bands and/or the
permuted-table SimHash index, each scored and kept down to the floor: the loosest threshold the
slider allows, so that regrouping needs no new search.

Used by the local scan (:mod:`neardup_core.scan.session`), which runs it once more after the
boilerplate pass; the Dask scan (:mod:`neardup_core.dask.pairs`) plans the same tables and bands
from the constants here, so both find the same pairs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from operator import attrgetter

import numpy as np

from neardup_core.arrays import first_of_class, unique_sorted
from neardup_core.errors import ScanCancelled
from neardup_core.heap import give_back
from neardup_core.models import Document, Method, PairTable, ScanOptions
from neardup_core.pairs.hamming_index import HammingIndex, PairLimitExceeded
from neardup_core.pairs.lsh import candidate_pairs, scan_params
from neardup_core.pairs.scoring import (
    distance_for_similarity,
    hamming,
    minhash_agreement,
    simhash_similarity,
)
from neardup_core.progress import CancelToken, Stage
from neardup_core.threadwork import MAX_THREADS, ThreadWork

__all__ = ["BOTH_SIMHASH_K", "HAMMING_WINDOW", "LSH_BANDS_PER_CHUNK", "LSH_MAX_BUCKET",
           "SIMHASH_PAIRS_MIN", "SIMHASH_PAIRS_PER_DOC", "Emit", "find_pairs"]

#: Hamming radius the SimHash index adds when MinHash is the scorer (cheap, catches near-copies).
BOTH_SIMHASH_K = 4
#: LSH buckets larger than this are linked as a chain and as a star around their best-ranked
#: member (the file a group would keep) instead of pair by pair (see lsh.py). A folder of
#: thousands of near-copies of one text (letters or invoices from one template) puts most of
#: them in one bucket of every band, and all pairs of such a bucket grow, in time and memory,
#: with the square of their number. The star keeps the reference linked to every copy,
#: which is what STRICT and large COHESIVE groups are read from. Real folders stay far below
#: it: the largest buckets of the benchmark corpora are a small fraction of it.
LSH_MAX_BUCKET = 256
#: With MinHash and SimHash together, a fingerprint keeps this many of its matches per table
#: of the SimHash index when many are alike, and the rest are linked around the best-ranked
#: one (HammingIndex.all_pairs' window and hubs), for the same reason. SimHash alone stays
#: exact within a budget of pairs (below): at its radius (up to 12 bits) many documents of the
#: benchmark corpus have more partners than a window keeps, and a window changed its pairs.
HAMMING_WINDOW = 16
#: SimHash alone pairs exactly while the pairs stay within this budget (this many per
#: document, and never less than SIMHASH_PAIRS_MIN): a real folder has far fewer a document,
#: a folder of thousands of versions of one text has as many as it has files. Past it the index
#: stops early and pairs again with the window and the star around each group's reference, as
#: the combined method does; the scan says so in a note. On thousands of copies and versions of
#: one text that takes a fraction of the time and memory of every pair, with the same largest
#: groups.
SIMHASH_PAIRS_PER_DOC = 64
SIMHASH_PAIRS_MIN = 1_000_000
#: Bands whose candidates are gathered, scored and filtered together.
LSH_BANDS_PER_CHUNK = 4

#: How the stage reports progress: ``emit(stage, done, total, message)``.
Emit = Callable[[Stage, int, "int | None", str], None]


def find_pairs(docs: Sequence[Document], simh: np.ndarray, minh: np.ndarray, floor: float,
               rank: np.ndarray, opt: ScanOptions, *, emit: Emit, cancel: CancelToken,
               notes: list[str], stats: dict, text_class: np.ndarray | None = None
               ) -> tuple[PairTable, bool]:
    """Every pair of ``docs`` that scores at least ``floor``, and whether a cancel cut the
    search short (the table then holds the pairs found until then).

    ``simh`` and ``minh`` are the documents' SimHash fingerprints and MinHash signatures (no
    columns with SimHash alone), ``rank`` the documents' reference ranks: crowded buckets are
    linked around the best-ranked document. What the user should know (crowded buckets, a
    pair budget met) is appended to ``notes``; the stage's counts and time go into ``stats``.
    ``text_class``: the documents' :func:`~neardup_core.result.text_classes`, when the
    caller has them (else the text hashes are compared here).
    """
    n = len(docs)
    emit(Stage.PAIRS, 0, 3, "Finding similar pairs")
    t = time.monotonic()
    cancelled = False
    # Exact tier: identical normalised texts collapse to their first document.
    if text_class is not None:
        rep_of = first_of_class(text_class)
    else:
        first: dict[str, int] = {}
        rep_of = np.fromiter(map(first.setdefault, map(_text_hash, docs), range(n)), np.int64, n)
        del first  # a dict entry and an int a document: not kept through the search
    reps = np.flatnonzero(rep_of == np.arange(n))
    copies = np.flatnonzero(rep_of != np.arange(n))
    ca: list[np.ndarray] = []
    cb: list[np.ndarray] = []
    hubs = rank[reps]  # crowded buckets are linked around the best-ranked
    work = ThreadWork()  # the bands' and the SimHash tables' NumPy work, on threads
    try:
        if reps.size >= 2 and opt.method in (Method.MINHASH, Method.BOTH):
            bands, rows = scan_params(floor, opt.num_perm, fp_weight=0.3, fn_weight=0.7)
            # the representatives' signatures are read from ``minh`` a few bands at a time,
            # not copied whole (51 MB at 100,000 documents, the stage's largest array)
            every = reps.size == n
            simh_reps = simh[reps]
            seen = 0
            truncated = 0
            lsh_kept = np.empty(0, np.int64)  # pair codes a * n + b kept so far, ascending
            # A few bands at a time, scored and filtered at once: thousands of short
            # template files can share buckets in every band, and the candidate list of all
            # bands together would grow with the square of their number before filtering.
            # The bands of a chunk are hashed and sorted on a thread (NumPy's sorts release
            # the GIL), MAX_THREADS chunks at a time whatever the threads (the memory in
            # flight does not depend on the machine); the candidates not met before are then
            # picked out here, in the order of the chunks, and scored on the threads again
            # (at 40,000 files the scoring here was half of this process's own CPU time in
            # the stage, issue 22). Every candidate met is scored, so the pairs kept are
            # those of one chunk after another.
            chunks = [(lo, min(LSH_BANDS_PER_CHUNK, bands - lo))
                      for lo in range(0, bands, LSH_BANDS_PER_CHUNK)]

            def band_candidates(chunk: tuple[int, int]) -> tuple[np.ndarray, int, int]:
                lo_band, nb = chunk
                cols = slice(lo_band * rows, (lo_band + nb) * rows)
                part = minh[:, cols] if every else minh[reps, cols]
                a, b, cut = candidate_pairs(part, nb, rows, max_bucket=LSH_MAX_BUCKET,
                                            hubs=hubs, chain_keys=simh_reps)
                return reps[a] * n + reps[b], cut, int(a.size)

            def scored(run: tuple[np.ndarray, int]) -> np.ndarray:
                """The codes of a run of ``codes`` (the array and where the run starts) whose
                pairs reach the floor (on a thread: the gathers and the comparison release the
                GIL, and were most of this loop's time here)."""
                codes, s = run
                code = codes[s:s + _SCORED_PER_TASK]
                return code[minhash_agreement(minh, code // n, code % n) >= np.float32(floor)]

            for w in range(0, len(chunks), MAX_THREADS):
                fresh: list[np.ndarray] = []
                window = lsh_kept  # the codes kept before, and those of this window so far
                got: list[tuple[np.ndarray, int, int] | None] = list(
                    work.map(band_candidates, chunks[w:w + MAX_THREADS]))
                for i in range(len(got)):
                    code, cut, size = got[i]  # type: ignore[misc]
                    got[i] = None  # a chunk's candidates go once looked at
                    truncated += cut
                    seen += size
                    # alike documents share many bands: a pair kept from an earlier chunk, or
                    # met in an earlier one of these, is not scored again (at 40,000 files 7
                    # candidates in 8 were; a pair scores the same wherever it is met)
                    code = _new_codes(code, window)
                    window = _merged(window, code)
                    fresh.append(code)
                    del code
                del window, got
                # in runs of a few thousand: the first chunk brings most of the new ones
                new = np.concatenate(fresh)
                del fresh
                runs = [(new, s) for s in range(0, new.size, _SCORED_PER_TASK)]
                kept = np.concatenate([np.empty(0, np.int64), *work.map(scored, runs)])
                del runs
                del new
                ca.append(kept // n)
                cb.append(kept % n)
                lsh_kept = _merged(lsh_kept, kept)  # (sorts what the runs kept, too)
                del kept
                cancel.raise_if_cancelled()
            del lsh_kept
            stats["lsh"] = {"bands": bands, "rows": rows, "candidates": seen,
                            "truncated_buckets": int(truncated)}
            if truncated:
                notes.append(f"{truncated} very crowded LSH buckets (many documents "
                             f"alike) were linked around the file each group would "
                             f"keep and in a chain rather than pair by pair; a few "
                             f"weak pairs among them may be missing.")
        emit(Stage.PAIRS, 1, 3, "")
        cancel.raise_if_cancelled()
        if reps.size >= 2 and opt.method in (Method.SIMHASH, Method.BOTH):
            kk = opt.max_distance if opt.method == Method.SIMHASH else \
                min(opt.max_distance, BOTH_SIMHASH_K)
            if opt.method == Method.SIMHASH:
                kk = min(kk, distance_for_similarity(floor))
            index = HammingIndex(simh[reps], max_k=kk, build_later=True)  # on the threads
            if opt.method == Method.BOTH:  # there LSH gives the pairs, this adds some
                a, b, _d = index.all_pairs(kk, window=HAMMING_WINDOW, hubs=hubs, work=work)
            else:
                a, b = _simhash_pairs(index, kk, hubs, notes, work)
            stats["simhash_candidates"] = int(a.size)
            if index.windowed:
                stats["simhash_windowed"] = True
            del index  # its permuted tables, before the candidates are scored
            ca.append(reps[a])
            cb.append(reps[b])
        emit(Stage.PAIRS, 2, 3, "")
    except ScanCancelled:
        cancelled = True
    finally:
        work.close()
    if work.phases:  # main-process CPU that divided over threads (the share benchmark's model)
        _threaded(stats, work.summary())
    if ca:
        a = np.concatenate(ca).astype(np.int64)
        b = np.concatenate(cb).astype(np.int64)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        key = unique_sorted(lo * n + hi)
        a, b = key // n, key % n
    else:
        a = b = np.empty(0, np.int64)
    dist = hamming(simh[a], simh[b])
    if minh.shape[1]:
        with ThreadWork() as scoring:
            jac = _agreement(scoring, minh, a, b)
        if scoring.phases:
            _threaded(stats, scoring.summary())
        score = jac.copy()
    else:
        jac = np.full(a.size, np.nan, dtype=np.float32)
        score = simhash_similarity(dist)
    keep = score >= np.float32(floor)
    a, b, dist, jac, score = a[keep], b[keep], dist[keep], jac[keep], score[keep]
    exact = np.zeros(a.size, dtype=bool)
    # star edges for exact copies: O(copies), not O(copies^2)
    ea, eb = rep_of[copies], copies
    pa = np.concatenate([a, ea]).astype(np.int32)
    pb = np.concatenate([b, eb]).astype(np.int32)
    table = PairTable(
        a=pa, b=pb,
        distance=np.concatenate([dist, np.zeros(ea.size, np.uint8)]),
        jaccard=np.concatenate([jac, np.ones(ea.size, np.float32)
                                if minh.shape[1] else np.full(ea.size, np.nan, np.float32)]),
        score=np.concatenate([score, np.ones(ea.size, np.float32)]),
        exact=np.concatenate([exact, np.ones(ea.size, bool)]),
    )
    stats["pairs"] = len(table)
    stats["exact_copies"] = int(copies.size)
    stats["seconds_pairs"] = round(time.monotonic() - t, 4)
    give_back()  # the search's temporaries (see neardup_core.heap)
    emit(Stage.PAIRS, 3, 3, "")
    return table, cancelled


_text_hash = attrgetter("text_hash")


def _threaded(stats: dict, summary: dict) -> None:
    """Adds a ThreadWork's summary to ``stats["cpu_parallel"]["pairs"]`` (the search runs
    again after the boilerplate pass: both count)."""
    spread = stats.setdefault("cpu_parallel", {})
    before = spread.get("pairs")
    if before is not None:
        summary = {**summary, "cpu_s": round(before["cpu_s"] + summary["cpu_s"], 4),
                   "phases": before["phases"] + summary["phases"]}
    spread["pairs"] = summary


#: Pairs scored a task at a time on threads.
_SCORED_PER_TASK = 4096


def _agreement(work: ThreadWork, minh: np.ndarray, a: np.ndarray, b: np.ndarray
               ) -> np.ndarray:
    """:func:`minhash_agreement` of the pairs, runs of them on ``work``'s threads (gathering
    the rows and comparing them releases the GIL)."""
    if a.size <= _SCORED_PER_TASK:
        return minhash_agreement(minh, a, b)
    runs = range(0, a.size, _SCORED_PER_TASK)
    return np.concatenate(work.map(
        lambda s: minhash_agreement(minh, a[s:s + _SCORED_PER_TASK], b[s:s + _SCORED_PER_TASK]),
        runs))


def _new_codes(code: np.ndarray, known: np.ndarray) -> np.ndarray:
    """The codes of ``code`` (ascending, distinct) that are not in ``known`` (likewise)."""
    if known.size == 0 or code.size == 0:
        return code
    at = np.searchsorted(known, code)
    np.minimum(at, known.size - 1, out=at)
    return code[known[at] != code]


def _merged(known: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``known`` (ascending) and ``new`` (disjoint from it; ascending is fastest: two sorted
    runs are merged in one pass) as one ascending array."""
    if new.size == 0:
        return known
    if known.size == 0:
        return new
    out = np.concatenate((known, new))
    out.sort(kind="stable")
    return out


def _simhash_pairs(index: HammingIndex, k: int, hubs: np.ndarray, notes: list[str],
                   work: ThreadWork) -> tuple[np.ndarray, np.ndarray]:
    """SimHash alone: every pair within k, unless there are far more than documents."""
    budget = max(SIMHASH_PAIRS_MIN, SIMHASH_PAIRS_PER_DOC * len(index))
    try:
        a, b, _d = index.all_pairs(k, max_pairs=budget, work=work)
        return a, b
    except PairLimitExceeded:
        pass
    a, b, _d = index.all_pairs(k, window=HAMMING_WINDOW, hubs=hubs, work=work)
    notes.append(f"Many documents here are near-copies of each other (more than "
                 f"{budget:,} similar pairs): they were linked around the file each "
                 f"group would keep rather than pair by pair; a few weak pairs among "
                 f"them may be missing.")
    return a, b
