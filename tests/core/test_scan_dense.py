"""A folder of many near-copies of one text (letters or invoices from one template).

Every pair of such files is alike, so pairing them all grows with the square of their number
(3,000 took 15 s and 2 GB, 12,000 would not fit in memory). Crowded LSH buckets are linked as
a chain and as a star around the file the group keeps instead: the groups must come out as
they do with every pair, at a fraction of the pairs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import textgen as tg

from neardup_core.models import GroupMode, ScanOptions
from neardup_core.pairs import find as find_module
from neardup_core.scan.session import ScanSession

COPIES = 160


@pytest.fixture(scope="module")
def template_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("letters")
    base = tg.en_doc(31, 30)
    for i in range(COPIES):
        text = tg.typos(base, 1000 + i, 2 + (i * 7) % 20)  # 2 to 21 letters changed
        (root / f"letter {i:03d}.txt").write_text(text, encoding="utf-8")
    (root / "unrelated.txt").write_text(tg.en_doc(32, 30), encoding="utf-8")
    return root


def _scan(folder: Path, max_bucket: int, monkeypatch: pytest.MonkeyPatch, **kw: object):
    monkeypatch.setattr(find_module, "LSH_MAX_BUCKET", max_bucket)
    return ScanSession(ScanOptions(use_cache=False, jobs=1, **kw)).run([str(folder)])


def _groups(result, mode: GroupMode, threshold: float) -> list[list[str]]:
    regrouped = result.regroup(threshold, mode)
    return sorted(sorted(regrouped.documents[m.doc].path for m in g.members)
                  for g in regrouped.groups)


def test_crowded_buckets_give_the_groups_of_every_pair_from_far_fewer_pairs(
        template_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exact = _scan(template_folder, 100_000, monkeypatch)
    linked = _scan(template_folder, 16, monkeypatch)
    assert exact.stats["lsh"]["truncated_buckets"] == 0
    assert linked.stats["lsh"]["truncated_buckets"] > 0
    assert len(linked.pairs) < len(exact.pairs) / 2
    assert any("crowded LSH buckets" in note for note in linked.notes)
    assert not any("crowded LSH buckets" in note for note in exact.notes)
    for mode in (GroupMode.STRICT, GroupMode.COHESIVE):
        for threshold in (0.6, 0.8):
            want = _groups(exact, mode, threshold)
            got = _groups(linked, mode, threshold)
            assert max(map(len, want)) >= COPIES // 2  # the template's group is a big one
            assert max(got, key=len) == max(want, key=len), (mode, threshold)
    # connected: every copy is linked to the others, as with every pair
    assert _groups(linked, GroupMode.CONNECTED, 0.6) == _groups(exact, GroupMode.CONNECTED, 0.6)


def test_without_the_star_a_strict_group_of_near_copies_falls_apart(
        template_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Why crowded buckets are linked around the reference: a chain alone leaves most copies
    unlinked to it, and STRICT groups are read from the links."""
    monkeypatch.setattr(find_module, "LSH_MAX_BUCKET", 16)
    real = find_module.candidate_pairs

    def chain_only(*args, **kw):
        kw.pop("hubs", None)
        return real(*args, **kw)

    monkeypatch.setattr(find_module, "candidate_pairs", chain_only)
    # SimHash would add links of its own: MinHash alone shows what the buckets give
    chained = ScanSession(ScanOptions(use_cache=False, jobs=1, method="minhash")).run(
        [str(template_folder)])
    monkeypatch.setattr(find_module, "candidate_pairs", real)
    starred = ScanSession(ScanOptions(use_cache=False, jobs=1, method="minhash")).run(
        [str(template_folder)])
    biggest = max(len(g) for g in starred.regroup(0.6, GroupMode.STRICT).groups)
    assert max(len(g) for g in chained.regroup(0.6, GroupMode.STRICT).groups) < biggest


def test_ranks_computed_for_the_pairs_are_the_results_own(
        template_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from neardup_core.grouping.reference import reference_rank

    result = _scan(template_folder, 16, monkeypatch)
    np.testing.assert_array_equal(result.auto_rank,
                                  reference_rank(result.documents, ()))


def test_a_crowding_that_boilerplate_caused_is_not_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files that share only a long licence crowd every bucket until the licence is set aside
    as boilerplate; the pairs then come from a second pass, and its notes are the ones kept."""
    licence = tg.en_doc(40, 25)
    for i in range(60):
        (tmp_path / f"contract {i:02d}.txt").write_text(tg.en_doc(100 + i, 8) + "\n" + licence,
                                                        encoding="utf-8")
    result = _scan(tmp_path, 8, monkeypatch)
    assert any("boilerplate" in note for note in result.notes)
    assert not any("crowded LSH buckets" in note for note in result.notes)
    assert not result.groups


def test_simhash_alone_stays_exact(template_folder: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """At SimHash's own radius real folders have rows with hundreds of partners, so no window
    there while the pairs stay within the budget: they are all the pairs, whatever the window of
    the combined method."""
    def run(window: int):
        monkeypatch.setattr(find_module, "HAMMING_WINDOW", window)
        return ScanSession(ScanOptions(use_cache=False, jobs=1, method="simhash")).run(
            [str(template_folder)])

    exact, small = run(100_000), run(2)
    assert not small.stats.get("simhash_windowed")
    np.testing.assert_array_equal(small.pairs.a, exact.pairs.a)
    np.testing.assert_array_equal(small.pairs.b, exact.pairs.b)


def test_simhash_alone_links_a_folder_past_its_pair_budget_around_references(
        template_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past SIMHASH_PAIRS_MIN (and SIMHASH_PAIRS_PER_DOC a document), SimHash alone stops
    pairing one by one and links near-copies as the combined method does: far fewer pairs,
    the same big groups, and a note that says so."""
    def run(budget: int):
        monkeypatch.setattr(find_module, "SIMHASH_PAIRS_MIN", budget)
        monkeypatch.setattr(find_module, "SIMHASH_PAIRS_PER_DOC", 1)
        return ScanSession(ScanOptions(use_cache=False, jobs=1, method="simhash")).run(
            [str(template_folder)])

    exact, linked = run(10_000_000), run(COPIES * 4)
    assert len(exact.pairs) > COPIES * (COPIES - 1) // 2 * 0.9  # nearly every pair
    assert not exact.stats.get("simhash_windowed")
    assert not any("near-copies of each other" in n for n in exact.notes)
    assert linked.stats.get("simhash_windowed")
    assert len(linked.pairs) < len(exact.pairs) / 2  # 16 a file here, not 160
    assert any("near-copies of each other" in n for n in linked.notes)
    for mode in (GroupMode.STRICT, GroupMode.COHESIVE):
        for threshold in (0.75, 0.85):
            want = _groups(exact, mode, threshold)
            got = _groups(linked, mode, threshold)
            assert max(map(len, want)) >= COPIES // 2
            assert max(got, key=len) == max(want, key=len), (mode, threshold)


def test_a_reference_the_user_picks_keeps_the_group_of_near_copies(
        template_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The star is around the file the scan ranked first; a copy the user makes the reference
    instead is scored against the documents two pairs away, so its group is the one all pairs
    give it."""
    exact = _scan(template_folder, 100_000, monkeypatch)
    linked = _scan(template_folder, 16, monkeypatch)
    biggest = max(exact.groups, key=len)
    pick = biggest.members[len(biggest.members) // 2].doc
    for mode in (GroupMode.STRICT, GroupMode.COHESIVE):
        want = exact.regroup(0.6, mode, references=((pick,),))
        got = linked.regroup(0.6, mode, references=((pick,),))
        mine = [g for g in got.groups if g.reference == pick]
        assert mine, mode
        assert sorted(m.doc for m in mine[0].members) == \
            sorted(m.doc for m in next(g for g in want.groups if g.reference == pick).members)
