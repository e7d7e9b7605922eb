"""The HTML page's comparisons computed ahead in worker processes (report/html_diffs.py): the
same bytes as the page computing them itself, whatever fails on the way."""

from __future__ import annotations

import os
from concurrent.futures import Executor, Future
from pathlib import Path

import pytest
from core._scan_folder import send_half_and_die
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.models import ScanOptions
from neardup_core.report import html_diffs, html_report
from neardup_core.report.html_report import write_html
from neardup_core.result import ScanResult
from neardup_core.scan.session import ScanSession

WRITTEN = "2026-11-28 00:00:00"
CLAUSES = [f"第{i}条 合同双方应当按照约定履行各自的义务，不得擅自变更或者解除合同。"
           f"Clause {i}: the parties shall perform their obligations as agreed." for i in
           range(1, 13)]
OTHER = [f"Article {i}: the tenant pays the rent each month before the fifth day, and keeps "
         f"the flat in good repair; 租户每月五日前支付租金，并保持房屋完好。" for i in range(1, 13)]


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[ScanResult, Path]:
    """Two families of near-copies (each copy with one clause changed), exact copies among
    them, and a copy deleted after the scan (its comparison says it could not be read)."""
    root = tmp_path_factory.mktemp("ahead")
    for fam, count in (("a", 40), ("b", 30)):
        base = OTHER if fam == "b" else CLAUSES
        for i in range(count):
            lines = list(base)
            if i % 7:  # every seventh is the same text as the family's first
                k = i % len(lines)
                lines[k] = (lines[k].replace("各自", f"第{i}项").replace("agreed", f"item {i}")
                            .replace("每月", f"第{i}月").replace("repair", f"repair {i}"))
            (root / f"{fam}{i:02d}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = ScanSession(ScanOptions(use_cache=False, jobs=1, threshold=0.5)).run([str(root)])
    assert len(res.group_table) >= 2
    os.remove(root / "a05.txt")
    return res, root


def _page(res: ScanResult, tmp: Path, name: str, **kw: object) -> bytes:
    out = tmp / name
    write_html(res, out, written=WRITTEN, **kw)
    return out.read_bytes()


def test_computed_ahead_the_page_is_the_same(scanned, tmp_path, monkeypatch) -> None:
    res, _ = scanned
    taken: list[bool] = []
    take = html_diffs.Ahead.take

    def counted(self: html_diffs.Ahead, path: str) -> str | None:
        got = take(self, path)
        taken.append(got is not None)
        return got

    monkeypatch.setattr(html_diffs.Ahead, "take", counted)
    alone = _page(res, tmp_path, "alone.html", jobs=1)
    assert not taken  # one job: the page compares them itself
    ahead = _page(res, tmp_path, "ahead.html", jobs=2)
    assert ahead == alone
    assert len(taken) >= html_diffs.AHEAD_FROM and all(taken)
    assert b"could not be read again" in ahead and b'class="c"' in ahead


def test_the_cap_on_comparisons_counts_alike(scanned, tmp_path, monkeypatch) -> None:
    res, _ = scanned
    monkeypatch.setattr(html_diffs, "AHEAD_FROM", 1)
    for cap in (1, 9, 45):
        assert _page(res, tmp_path, "a.html", jobs=2, max_diffs=cap) == \
            _page(res, tmp_path, "b.html", jobs=1, max_diffs=cap), cap


class _Broken(Executor):
    """A pool that takes a few tasks, fails some, then refuses the rest."""

    def __init__(self) -> None:
        self.calls = 0

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        self.calls += 1
        if self.calls > 5:
            raise RuntimeError("cannot schedule new futures after shutdown")
        f: Future = Future()
        if self.calls % 2:
            f.set_result(fn(*args, **kwargs))
        else:
            f.set_exception(OSError("worker lost"))
        return f


def test_a_failing_pool_leaves_the_page_the_same(scanned, tmp_path, monkeypatch) -> None:
    res, _ = scanned
    alone = _page(res, tmp_path, "alone.html", jobs=1)
    pools: list[_Broken] = []

    def broken(*a: object, **k: object) -> _Broken:
        pools.append(_Broken())
        return pools[-1]

    monkeypatch.setattr("neardup_core.scan.pool.ProcessPoolExecutor", broken)
    monkeypatch.setattr(_Broken, "shutdown", lambda self, **k: None, raising=False)
    monkeypatch.setattr(html_diffs, "PER_TASK", 8)  # tasks enough to see the pool refuse
    assert _page(res, tmp_path, "broken.html", jobs=2) == alone
    assert pools and pools[0].calls > 5


def test_a_given_text_of_is_never_sent_to_workers(scanned, tmp_path, monkeypatch) -> None:
    res, _ = scanned
    monkeypatch.setattr(html_report, "pool_workers", lambda *a: pytest.fail("pool asked"))
    page = _page(res, tmp_path, "given.html", jobs=4, text_of=lambda path: "same text")
    assert b"No differences line by line" in page


def test_few_comparisons_start_no_workers() -> None:
    assert html_diffs.pool_workers(0, html_diffs.AHEAD_FROM - 1) == 0
    assert html_diffs.pool_workers(1, 10_000) == 0
    assert html_diffs.pool_workers(2, 10_000) in (0, 2)  # 0 on a machine of one core
    assert html_diffs.pool_workers(64, 3 * html_diffs.PER_TASK) <= 3


def test_tasks_put_small_groups_together_and_cut_big_ones() -> None:
    """A worker gets tasks of at least PER_TASK members where the groups allow: with a group
    of a few members a task, it waited for its next task about as long as it worked."""
    plan = [(f"r{g}", f"R{g}", [(f"m{g}.{i}", f"M{g}.{i}") for i in range(size)])
            for g, size in enumerate([3, 2, 4, 11, 1, 1])]
    tasks = html_diffs.task_parts(plan, 5)
    flat = [(ref, m) for task in tasks for ref, _, members in task for m in members]
    assert flat == [(ref, m) for ref, _, members in plan for m in members]  # each once, in order
    assert [[len(members) for _, _, members in task] for task in tasks] == \
        [[3, 2], [4, 5], [5], [1, 1, 1]]  # the group of 11 in pieces of at most 5
    assert html_diffs.task_parts([], 5) == []


def test_the_files_not_read_again_are_told_either_way(scanned, tmp_path) -> None:
    """The kept-report path needs to know whether the page could read every file again."""
    res, root = scanned
    for jobs in (1, 2):
        unread: list[str] = []
        write_html(res, tmp_path / "p.html", written=WRITTEN, jobs=jobs, unread=unread)
        assert set(unread) == {str(root / "a05.txt")}, jobs


class _Later(Future):
    """A comparison that a worker has not finished the first forty times the page looks (so
    that the page puts together every group it can while it waits for the first)."""

    def __init__(self, fn, args) -> None:  # type: ignore[no-untyped-def]
        super().__init__()
        self.fn, self.args, self.looked = fn, args, 0

    def _finish(self) -> None:
        if not super().done():
            self.set_result(self.fn(*self.args))

    def done(self) -> bool:
        self.looked += 1
        if self.looked > 40:
            self._finish()
        return super().done()

    def result(self, timeout=None):  # type: ignore[no-untyped-def]
        self._finish()
        return super().result(timeout)


class _Slow(Executor):
    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        return _Later(fn, args)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        pass


@pytest.fixture(scope="module")
def families(tmp_path_factory: pytest.TempPathFactory) -> ScanResult:
    """Thirty groups of a text and two edits of it (and an exact copy in every third)."""
    import textgen as tg

    root = tmp_path_factory.mktemp("families")
    for f in range(30):
        text = tg.en_doc(100 + f, 12) if f % 2 else tg.zh_doc(100 + f, 12)
        (root / f"f{f:02d}.txt").write_text(text, encoding="utf-8")
        (root / f"f{f:02d} edit.txt").write_text(tg.typos(text, f, 2), encoding="utf-8")
        (root / f"f{f:02d} more.txt").write_text(tg.typos(text, f + 50, 3), encoding="utf-8")
        if f % 3 == 0:
            (root / f"f{f:02d} copy.txt").write_text(text, encoding="utf-8")
    res = ScanSession(ScanOptions(use_cache=False, jobs=1, threshold=0.5)).run([str(root)])
    assert len(res.group_table) >= 25
    return res


@pytest.fixture
def slow_workers(monkeypatch) -> list[bool]:
    """Pages in blocks of a group or so, two workers whose comparisons are slow to come (so
    the page puts together what it can meanwhile), and what each try at that gave."""
    from functools import partial

    from neardup_core.report import columns

    monkeypatch.setattr(html_report, "blocks", partial(columns.blocks, lines=4))
    monkeypatch.setattr(html_report, "pool_workers", lambda jobs, n: 2)
    monkeypatch.setattr("neardup_core.scan.pool.ProcessPoolExecutor", lambda *a, **k: _Slow())
    early: list[bool] = []
    real = html_report._Html._put_together_ahead

    def counted(self: html_report._Html) -> bool:
        early.append(real(self))
        return early[-1]

    monkeypatch.setattr(html_report._Html, "_put_together_ahead", counted)
    return early


def test_groups_past_the_comparisons_are_put_together_while_waiting(families, tmp_path,
                                                                    slow_workers) -> None:
    """While a worker's comparison is not ready, the page puts together the groups that come
    after the last comparison, and writes them at their turn: the same page, byte for byte,
    with the cap on comparisons anywhere."""
    early = slow_workers
    for cap in (1, 5, 8, 16, 17, 1000):  # 8, 16: the comparisons end with a group
        early.clear()
        alone = _page(families, tmp_path, "alone.html", jobs=1, max_diffs=cap)
        assert not early
        ahead = _page(families, tmp_path, "ahead.html", jobs=2, max_diffs=cap)
        assert ahead == alone, cap
        if cap < 40:  # the comparisons run out before the groups: the rest waits no more
            assert sum(early) >= 3, cap
            assert b"Differences are shown for the first" in ahead
        else:
            assert not any(early)


def test_the_page_works_on_while_its_workers_start(families, tmp_path, monkeypatch) -> None:
    """Starting the workers waits for the fork server (0.4 s when no scan started it): the
    page puts together the groups past its comparisons meanwhile, not after."""
    import threading
    from functools import partial

    from neardup_core.report import columns

    monkeypatch.setattr(html_report, "blocks", partial(columns.blocks, lines=4))
    monkeypatch.setattr(html_report, "pool_workers", lambda jobs, n: 2)
    worked = threading.Event()
    seen: list[bool] = []

    class Starting(_Broken):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
            if not seen:  # the first task starts the workers: slow until the page works
                seen.append(worked.wait(10))
            f: Future = Future()
            f.set_result(fn(*args, **kwargs))
            return f

    monkeypatch.setattr("neardup_core.scan.pool.ProcessPoolExecutor", lambda *a, **k: Starting())
    monkeypatch.setattr(Starting, "shutdown", lambda self, **k: None, raising=False)
    real = html_report._Html._put_together_ahead

    def counted(self: html_report._Html) -> bool:
        got = real(self)
        worked.set()
        return got

    monkeypatch.setattr(html_report._Html, "_put_together_ahead", counted)
    alone = _page(families, tmp_path, "alone.html", jobs=1, max_diffs=8)
    assert _page(families, tmp_path, "ahead.html", jobs=2, max_diffs=8) == alone
    assert seen == [True]


def test_texts_read_again_with_the_scans_codecs_give_the_same_page(tmp_path, monkeypatch):
    """Each text file is read again with the codec the scan found (no detection): the same
    page as detecting every codec again, in every encoding a folder holds."""
    import textgen as tg

    from neardup_core import extract as ex

    root = tmp_path / "enc"
    root.mkdir()
    for i, enc in enumerate(("gbk", "big5", "utf-16", "utf-8-sig", "gb18030", "utf-8")):
        text = tg.zh_doc(200 + i, 12) if enc not in ("utf-8",) else tg.en_doc(200 + i, 12)
        if enc == "big5":
            text = text.encode("big5", errors="ignore").decode("big5")
        (root / f"t{i}.txt").write_bytes(text.encode(enc))
        (root / f"t{i} edit.txt").write_bytes(tg.typos(text, i, 2).encode(enc, errors="ignore"))
    (root / "latin.txt").write_bytes(("Café crème, déjà vu. " * 40).encode("cp1252"))
    (root / "latin edit.txt").write_bytes(("Café crème, déjà vu! " * 40).encode("cp1252"))
    res = ScanSession(ScanOptions(use_cache=False, jobs=1, threshold=0.5)).run([str(root)])
    assert len(res.group_table) >= 5
    assert len({d.encoding for d in res.documents}) >= 5
    detecting = html_diffs.default_text_of(res.options.max_size)  # no hints
    plain = _page(res, tmp_path, "plain.html", text_of=detecting)
    given: list[str | None] = []
    real = ex.extract

    def counted(path: str, *, max_bytes: int, encoding: str | None = None):
        given.append(encoding)
        return real(path, max_bytes=max_bytes, encoding=encoding)

    monkeypatch.setattr(ex, "extract", counted)
    assert _page(res, tmp_path, "hinted.html", jobs=1) == plain
    assert given and all(e is not None for e in given)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from([*"ab 中文&<>\"'\t", "\ud800", "\udfff", "é"]),
               max_size=40), st.lists(st.integers(0, 40), max_size=8))
def test_a_marked_row_is_each_piece_escaped_and_shown(text, cuts) -> None:
    """A changed row is put together with fewer calls than a call per piece: the same HTML
    as escaping each piece, surrogates and characters to escape included."""
    from neardup_core.diff import Span

    ends = sorted({min(c, len(text)) for c in cuts})
    spans = tuple(Span(a, b) for a, b in zip(ends[::2], ends[1::2], strict=False) if b > a)
    want, pos = [], 0
    for s in spans:
        want.append(html_diffs._t(text[pos:s.start]))
        want.append(f'<span class="c">{html_diffs._t(text[s.start:s.end])}</span>')
        pos = s.end
    want.append(html_diffs._t(text[pos:]))
    assert html_diffs._marked(text, spans) == "".join(want)
    assert html_diffs._marked(None, spans) == ""


def test_what_is_put_together_ahead_is_bounded(families, tmp_path, slow_workers,
                                               monkeypatch) -> None:
    """Past EARLY_MAX_BYTES of groups kept, the page waits for its comparisons instead: one
    block at most here, and the same page."""
    monkeypatch.setattr(html_report, "EARLY_MAX_BYTES", 1)
    early = slow_workers
    alone = _page(families, tmp_path, "alone.html", jobs=1, max_diffs=8)
    assert _page(families, tmp_path, "ahead.html", jobs=2, max_diffs=8) == alone
    assert sum(early) == 1 and len(early) > 1


def test_a_worker_killed_while_sending_costs_the_page_nothing(scanned, tmp_path,
                                                               monkeypatch) -> None:
    """The pool's manager thread then reads the rest of a message for good, and the page
    waited for that comparison, and for the pool's end, for ever (an export that never ends,
    an app that cannot quit). The page notices the worker is gone, compares the rest itself,
    the same bytes, and leaves no thread behind."""
    import threading

    res, _ = scanned
    alone = _page(res, tmp_path, "alone.html", jobs=1)
    monkeypatch.setattr(html_diffs, "LOST_CHECK_S", 0.2)
    monkeypatch.setattr(html_diffs, "compare_task", send_half_and_die)  # killed as it sends
    before = set(threading.enumerate())
    assert _page(res, tmp_path, "ahead.html", jobs=2) == alone
    left = [t for t in set(threading.enumerate()) - before if t.is_alive()]
    for t in left:
        t.join(timeout=30)
    assert not [t.name for t in left if t.is_alive()]
