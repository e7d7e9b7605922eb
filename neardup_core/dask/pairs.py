"""The all-pairs search, grouping and boilerplate vote of a Dask scan, as dataframe graphs.

This is the batch mode of Manku, Jain and Das Sarma ("Detecting Near-Duplicates for Web
Crawling", WWW 2007, section 3.1.2), in which every fingerprint is a query:

1. *Key*: for each permuted table, each document's fingerprint gets its table's prefix as a
   key; for each MinHash band, its band hash (the same keys the local index and lsh.py use).
   All (kind, key, id, simhash) rows of a pass form one dataframe.
2. *Shuffle* that dataframe on (kind, key), so each bucket lands whole in one partition, and
   compare inside buckets only: the popcount test for tables, every pair (or, in a crowded
   bucket, each with its next few) for bands. Out come candidate pairs with their SimHash
   distance. SimHash alone keeps the local scan's budget per partition: past 64 pairs a row,
   a partition's tables link near-copies around their reference instead.
3. *Score*: shuffle the candidates to the partition of the fingerprint table holding their
   first document (the table is indexed by document number, so this is a range partitioning
   with its divisions), drop repeats there, attach that document's MinHash slots, shuffle to
   the second document's partition and score. Only pairs at or above the floor are kept.
4. *Group*: union-find inside each partition of pairs, then a tree of merges of the per-
   partition forests (:func:`neardup_core.dask.kernels.forest`): memory at the top of the tree
   is one row per paired document, never every pair.

The functions here only build lazy collections; :mod:`neardup_core.dask.session` runs them with
progress and cancel.
"""

from __future__ import annotations

import math

import dask
from dask import delayed
from dask.dataframe import DataFrame, concat, map_partitions

from neardup_core.dask import kernels as K
from neardup_core.models import Method, ScanOptions
from neardup_core.pairs.find import (
    BOTH_SIMHASH_K,
    HAMMING_WINDOW,
    LSH_MAX_BUCKET,
    SIMHASH_PAIRS_MIN,
    SIMHASH_PAIRS_PER_DOC,
)
from neardup_core.pairs.hamming_index import plan as table_plan
from neardup_core.pairs.lsh import DEFAULT_BUCKET_WINDOW, scan_params
from neardup_core.pairs.scoring import distance_for_similarity

#: Partial forests merged per step of the grouping's tree of merges.
SPLIT_EVERY = 8
#: Up to this many partitions a shuffle runs as plain tasks unless Dask is told otherwise:
#: measured twice as fast as P2P on 10^6-10^7 keyed rows over 2 workers, whose fixed costs
#: (disk buffers, a barrier) pay off only for shuffles of many partitions.
TASKS_UP_TO = 64


def shuffle_method(requested: str | None, partitions: int) -> str | None:
    """The shuffle method for a shuffle into ``partitions``: the caller's, else Dask's
    configured one, else tasks for small shuffles and Dask's default (P2P) for large ones."""
    if requested is not None:
        return requested
    if dask.config.get("dataframe.shuffle.method", None) is not None:
        return None
    return "tasks" if partitions <= TASKS_UP_TO else None


def pair_plan(opt: ScanOptions, floor: float, reps: int, *,
              max_bucket: int = LSH_MAX_BUCKET) -> K.PairPlan | None:
    """The tables and bands the local scan would use for ``reps`` distinct texts (None: < 2).

    Radius and bands follow :func:`neardup_core.pairs.find.find_pairs`: LSH for MinHash and
    both, the permuted tables for SimHash (radius max_distance, no further than the floor,
    every pair) and both (radius at most 4, HAMMING_WINDOW matches a row), crowded buckets
    from LSH_MAX_BUCKET members.
    """
    if reps < 2:
        return None
    tables: tuple[tuple[int, ...], ...] = ()
    starts: tuple[int, ...] = ()
    widths: tuple[int, ...] = ()
    k = 0
    if opt.method in (Method.SIMHASH, Method.BOTH):
        k = opt.max_distance if opt.method == Method.SIMHASH else \
            min(opt.max_distance, BOTH_SIMHASH_K)
        if opt.method == Method.SIMHASH:
            k = min(k, distance_for_similarity(floor))
        plan = table_plan(reps, k)
        starts, widths = plan.starts, plan.widths
        tables = tuple(spec.blocks for spec in plan.tables)  # brute force: one empty prefix
    bands = rows = 0
    if opt.method in (Method.MINHASH, Method.BOTH):
        bands, rows = scan_params(floor, opt.num_perm, fp_weight=0.3, fn_weight=0.7)
    minhash = opt.method != Method.SIMHASH
    alone = opt.method == Method.SIMHASH
    return K.PairPlan(k=k, starts=starts, widths=widths, tables=tables, bands=bands, rows=rows,
                      idx_bits=max(1, (reps - 1).bit_length()), max_bucket=max_bucket,
                      window=DEFAULT_BUCKET_WINDOW, minhash=minhash,
                      num_perm=opt.num_perm if minhash else 0, floor=float(floor),
                      table_window=HAMMING_WINDOW if opt.method == Method.BOTH else None,
                      pairs_per_doc=SIMHASH_PAIRS_PER_DOC if alone else 0,
                      pairs_min=SIMHASH_PAIRS_MIN if alone else 0,
                      window_past_budget=HAMMING_WINDOW if alone else 0)


def keyed(fps: DataFrame, plan: K.PairPlan, *, part_rows: int, task_rows: int) -> DataFrame:
    """Step 1: a (kind, key, id, simhash) row per first-of-its-text document and kind.

    Kinds are keyed in waves so no task makes more than about ``task_rows`` rows (a partition
    of ``part_rows`` fingerprints times the kinds of its wave).
    """
    firsts = fps[fps["rep"]]
    per_wave = max(1, task_rows // max(1, part_rows))
    kinds = list(range(plan.kinds))
    waves = [kinds[i:i + per_wave] for i in range(0, len(kinds), per_wave)]
    parts = [firsts.map_partitions(K.keyed_rows, plan, wave, meta=K.KEYED_META)
             for wave in waves]
    return concat(parts) if len(parts) > 1 else parts[0]


def shuffled(rows: DataFrame, plan: K.PairPlan, *, reps: int, task_rows: int,
             method: str | None = None) -> DataFrame:
    """Step 2: the keyed rows shuffled on (kind, key), into partitions of about ``task_rows``."""
    out_parts = max(rows.npartitions, math.ceil(reps * plan.kinds / max(1, task_rows)))
    return rows.shuffle(on=["kind", "key"], npartitions=out_parts,
                        shuffle_method=shuffle_method(method, out_parts))


def compared(buckets: DataFrame, plan: K.PairPlan) -> DataFrame:
    """Step 3: candidate pairs (a, b, dist) found inside each partition's buckets."""
    return buckets.map_partitions(K.bucket_pairs, plan, meta=K.CAND_META)


def candidates(fps: DataFrame, plan: K.PairPlan, *, reps: int, part_rows: int, task_rows: int,
               method: str | None = None) -> DataFrame:
    """Candidate pairs (a, b, dist) of the first documents of each text, repeats allowed:
    steps 1 to 3 in one graph."""
    rows = keyed(fps, plan, part_rows=part_rows, task_rows=task_rows)
    return compared(shuffled(rows, plan, reps=reps, task_rows=task_rows, method=method), plan)


def truncated(cand: DataFrame) -> object:
    """Lazy count of crowded LSH buckets, from the count rows of :func:`candidates`."""
    return cand[cand["a"] == K.COUNT_ROW]["b"].sum()


def windowed(cand: DataFrame) -> object:
    """Lazy count of the partitions whose table runs went past SimHash alone's budget."""
    return cand[cand["a"] == K.WINDOWED_ROW]["b"].sum()


def scored(cand: DataFrame, fps: DataFrame, plan: K.PairPlan, *,
           method: str | None = None) -> DataFrame:
    """Distinct candidate pairs with their distance, Jaccard estimate and score, >= the floor."""
    divisions = list(fps.divisions)
    how = shuffle_method(method, fps.npartitions)
    pairs = cand[cand["a"] >= 0]   # not the count rows
    by_a = pairs.set_index("a", divisions=divisions, shuffle_method=how)
    if not plan.minhash:
        return map_partitions(K.join_left, by_a, fps, plan, meta=K.PAIRS_META)
    left_meta = K.join_left(K.CAND_META.set_index("a"), K.fps_meta(plan.num_perm), plan)
    left = map_partitions(K.join_left, by_a, fps, plan, meta=left_meta)
    by_b = left.set_index("b", divisions=divisions, shuffle_method=how)
    return map_partitions(K.join_right, by_b, fps, plan, meta=K.PAIRS_META)


def components(edges: DataFrame, extra: object | None = None, *,
               split_every: int = SPLIT_EVERY) -> object:
    """Lazy forest (a = node, b = smallest node of its component) of ``edges`` plus ``extra``
    (a frame, or a future of one, of edges known on the client: the exact-copy links)."""
    level = [delayed(K.forest)(part) for part in edges.to_delayed()]
    if extra is not None:
        level.append(delayed(K.forest)(extra))
    while len(level) > 1:
        level = [delayed(K.forest)(*level[i:i + split_every])
                 for i in range(0, len(level), split_every)]
    return level[0]


def boilerplate(lines: DataFrame, labels: object, need: int, *,
                method: str | None = None) -> DataFrame:
    """Lines found in at least ``need`` clusters (``labels``: a forest from :func:`components`)."""
    voted = lines.map_partitions(K.cluster_lines, delayed(labels), meta=K.CLUSTER_LINES_META)
    shuffled = voted.shuffle(on="line",
                             shuffle_method=shuffle_method(method, voted.npartitions))
    return shuffled.map_partitions(K.vote, need, meta=K.BOILER_META)
