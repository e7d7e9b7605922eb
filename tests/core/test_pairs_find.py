"""The pair search stage (neardup_core.pairs.find): the same pairs as scoring every LSH
candidate of every chunk of bands, which the stage no longer does for a pair an earlier chunk
kept (issue 22)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.arrays import unique_sorted
from neardup_core.models import Document, Method, PairTable, ScanOptions
from neardup_core.pairs import find
from neardup_core.pairs.find import LSH_BANDS_PER_CHUNK, LSH_MAX_BUCKET, find_pairs
from neardup_core.pairs.lsh import candidate_pairs, scan_params
from neardup_core.pairs.scoring import minhash_agreement
from neardup_core.progress import CancelToken
from neardup_core.result import text_classes


def _docs(hashes: list[str]) -> list[Document]:
    return [Document(f"/r/{i}.txt", 1, 0.0, "txt", None, None, 0, 1, h)
            for i, h in enumerate(hashes)]


def _corpus(seed: int, n: int, k: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Families of near-copies (a few slots and bits changed) and some exact copies."""
    rng = np.random.default_rng(seed)
    minh = rng.integers(0, 2**32, (n, k), dtype=np.uint32)
    simh = rng.integers(0, 2**64, n, dtype=np.uint64)
    for i in range(1, n):
        if rng.random() < 0.7:  # a near-copy of an earlier document
            j = int(rng.integers(0, i))
            minh[i] = minh[j]
            slots = rng.integers(0, k, int(rng.integers(0, k // 2)))
            minh[i, slots] = rng.integers(0, 2**32, slots.size, dtype=np.uint32)
            simh[i] = simh[j] ^ np.uint64(1 << int(rng.integers(0, 64)))
    hashes = [f"h{i}" for i in range(n)]
    for i in rng.integers(1, n, n // 8).tolist():  # exact copies share their text's hash
        j = int(rng.integers(0, i))
        hashes[i], minh[i], simh[i] = hashes[j], minh[j], simh[j]
    return hashes, simh, minh


def _lsh_pairs_scoring_everything(minh: np.ndarray, reps: np.ndarray, rank: np.ndarray,
                                  simh: np.ndarray, floor: float, num_perm: int
                                  ) -> np.ndarray:
    """The kept LSH pairs as the stage found them before: every candidate of every chunk
    scored, the pairs kept by each chunk joined and made distinct."""
    n = minh.shape[0]
    bands, rows = scan_params(floor, num_perm, fp_weight=0.3, fn_weight=0.7)
    kept = []
    for lo in range(0, bands, LSH_BANDS_PER_CHUNK):
        nb = min(LSH_BANDS_PER_CHUNK, bands - lo)
        part = minh[reps, lo * rows:(lo + nb) * rows]
        a, b, _ = candidate_pairs(part, nb, rows, max_bucket=LSH_MAX_BUCKET,
                                  hubs=rank[reps], chain_keys=simh[reps])
        a, b = reps[a], reps[b]
        keep = minhash_agreement(minh, a, b) >= np.float32(floor)
        kept.append(a[keep] * n + b[keep])
    return unique_sorted(np.concatenate(kept))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 300), st.sampled_from([0.3, 0.5, 0.8]),
       st.sampled_from([7, 8192]))
def test_lsh_pairs_are_those_of_scoring_every_candidate(seed: int, n: int, floor: float,
                                                        per_task: int) -> None:
    """... whether the pairs are scored in one call or a few at a time on threads."""
    saved = find._SCORED_PER_TASK
    find._SCORED_PER_TASK = per_task
    try:
        _same_pairs_as_scoring_every_candidate(seed, n, floor)
    finally:
        find._SCORED_PER_TASK = saved


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 300), st.sampled_from([0.3, 0.5, 0.8]),
       st.sampled_from([1, 5, 4096]))
def test_lsh_pairs_the_same_over_many_windows_of_chunks(seed: int, n: int, floor: float,
                                                        per_task: int) -> None:
    """One band a chunk: many windows of MAX_THREADS chunks, each window's candidates
    scored on threads once no earlier chunk met them (a pair rejected once is not scored
    again): still the pairs of scoring every candidate of every chunk."""
    saved = find.LSH_BANDS_PER_CHUNK, find._SCORED_PER_TASK
    find.LSH_BANDS_PER_CHUNK, find._SCORED_PER_TASK = 1, per_task
    try:
        _same_pairs_as_scoring_every_candidate(seed, n, floor)
    finally:
        find.LSH_BANDS_PER_CHUNK, find._SCORED_PER_TASK = saved


def _same_pairs_as_scoring_every_candidate(seed: int, n: int, floor: float) -> None:
    k = 64
    hashes, simh, minh = _corpus(seed, n, k)
    opt = ScanOptions(method=Method.MINHASH, num_perm=k, floor=floor, threshold=max(floor, 0.6)
                      ).validate()
    rank = np.random.default_rng(seed).permutation(n).astype(np.int64)
    stats: dict = {}
    pairs, cancelled = find_pairs(_docs(hashes), simh, minh, floor, rank, opt,
                                  emit=lambda *a: None, cancel=CancelToken(), notes=[],
                                  stats=stats)
    assert not cancelled
    first: dict[str, int] = {}
    rep_of = np.array([first.setdefault(h, i) for i, h in enumerate(hashes)], np.int64)
    reps = np.flatnonzero(rep_of == np.arange(n))
    want = _lsh_pairs_scoring_everything(minh, reps, rank, simh, floor, k) \
        if reps.size >= 2 else np.empty(0, np.int64)
    got = pairs.a[~pairs.exact].astype(np.int64) * n + pairs.b[~pairs.exact]
    assert got.tolist() == want.tolist()
    # the exact tier: each copy linked to the first document with its text
    copies = np.flatnonzero(rep_of != np.arange(n))
    assert pairs.a[pairs.exact].tolist() == rep_of[copies].tolist()
    assert pairs.b[pairs.exact].tolist() == copies.tolist()
    assert np.array_equal(pairs.jaccard[~pairs.exact],
                          minhash_agreement(minh, pairs.a[~pairs.exact].astype(np.int64),
                                            pairs.b[~pairs.exact].astype(np.int64)))
    assert isinstance(pairs, PairTable)
    # the scan hands over the documents' text classes: the same table
    classes = text_classes(hashes)
    again, _ = find_pairs(_docs(hashes), simh, minh, floor, rank, opt, emit=lambda *a: None,
                          cancel=CancelToken(), notes=[], stats={}, text_class=classes)
    for f in ("a", "b", "distance", "jaccard", "score", "exact"):
        np.testing.assert_array_equal(getattr(again, f), getattr(pairs, f))
