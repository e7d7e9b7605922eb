"""The HTML report's comparisons of a copy with its reference, and computing them ahead, in
worker processes, while the page's first groups are written.

A page shows the differences of up to a thousand members, each read again from its file and
diffed: on a real folder that was most of the page's time (on the benchmark's 40,000 files
0.6 s of CPU of 0.95, on 200,000 files 0.85 s of 1.95; issue 22 asks for pages as fast as the
scan). The comparisons do not depend on one another, so :class:`Ahead` hands them to a process
pool (forked from the scan's preloaded server where the platform has one) in tasks of a few
dozen members with their references (several small groups a task), and the page takes each
comparison's HTML when it gets there: the same bytes as the page computing them itself
(:class:`DiffWriter` writes both).

This module imports only what a worker needs: the diff, the reader, the wording. Not the result
or the grouping (SciPy), which a worker would otherwise load for nothing.
"""

from __future__ import annotations

import html
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future
from typing import TYPE_CHECKING

from neardup_core import diff as _diff
from neardup_core.messages import phrase, word
from neardup_core.report.destination import display
from neardup_core.visible import visible

if TYPE_CHECKING:
    from neardup_core.models import Document

TextOf = Callable[[str], str | None]
"""A document's text by its path, or None when it cannot be read (the diffs' source)."""

#: Fewer comparisons than this are computed by the page itself: starting workers costs more.
AHEAD_FROM = 48
#: Members a task compares, at least (a big group's in pieces of this many, small groups'
#: together; each reference read once per task): a task of at most eight took a worker 6 ms,
#: about what it then waited for the next, as the page's threads that hand tasks out and read
#: answers back share the page's interpreter with the page (on two cores its workers were
#: idle half the time).
PER_TASK = 32
#: Tasks each worker is given at a time, at most (the page waits for them in order).
QUEUED_PER_WORKER = 4
#: seconds between looks at whether the pool's workers are all still there, while the page
#: waits for a comparison: a worker killed in the middle of sending one back (by the OOM
#: killer, say) leaves its future pending for good (the pool's manager thread waits for the
#: rest of the message), and the page then compares it, and the rest, itself
LOST_CHECK_S = 1.0


#: What the scan knew of a text file it read: (codec, size, modification time in ns).
Hint = tuple[str, int, int]


def txt_hint(doc: Document) -> Hint | None:
    """``doc``'s :data:`Hint` when it is a text file whose codec and time were recorded."""
    if doc.format != "txt" or not doc.encoding or not doc.mtime_ns:
        return None
    return doc.encoding, doc.size, doc.mtime_ns


def default_text_of(max_bytes: int, hints: Mapping[str, Hint] | None = None,
                    extract: Callable[..., object] | None = None) -> TextOf:
    """The ``text_of`` that :func:`~neardup_core.report.html_report.write_html` uses when given
    none: re-extract a file's text for the diffs (files up to ``max_bytes``) with ``extract``
    (by default :func:`neardup_core.extract.extract`: in a worker armed with the scan's limits;
    the page's own process passes one that reads PDFs within them,
    :func:`neardup_core.scan.isolated.read_isolated`); any failure means "no text", never an
    error.

    A text file in ``hints`` whose size and time are still the scan's is decoded with the
    codec the scan found rather than detected again (the same text: the codec the detection
    reports reads the bytes to the text it gave, which the fuzzer's ``decode`` target checks);
    on the benchmark folder's files that read them 2.4 times as fast."""
    if extract is None:
        try:
            from neardup_core.extract import extract
        except ImportError:
            return lambda path: None

    def read(path: str, encoding: str | None) -> str | None:
        got = extract(path, max_bytes=max_bytes, encoding=encoding)
        text = getattr(got, "text", None)
        return text if isinstance(text, str) else None

    def text_of(path: str) -> str | None:
        hint = hints.get(path) if hints else None
        if hint is not None:
            try:
                st = os.stat(path)
                text = (read(path, hint[0]) if st.st_size == hint[1]
                        and st.st_mtime_ns == hint[2] else None)
                if text is not None:
                    return text
            except Exception:  # changed, gone, or the codec unknown here: as without a hint
                pass
        try:
            return read(path, None)
        except Exception:  # a report must not fail because one file changed since the scan
            return None

    return text_of


def _e(s: object) -> str:
    """A name, path, message or label for the page: escaped, its control characters shown."""
    return html.escape(visible(str(s)), quote=True)


def _t(s: str) -> str:
    """A piece of a document's text for the page: escaped, its tabs and the rest kept."""
    return html.escape(display(s), quote=True)


class DiffWriter:
    """Writes a comparison (or a sentence of the page) through ``w`` in the page's language."""

    def __init__(self, language: str, max_chars: int, context: int,
                 w: Callable[[str], object]) -> None:
        self.language = language
        self.max_chars = max_chars
        self.context = context
        self.w = w

    def t(self, text: str) -> str:
        """A heading or fixed sentence of the page in the report's language, escaped."""
        return html.escape(word(text, self.language), quote=True)

    def say(self, template: str, **args: object) -> str:
        """A sentence of the page in the report's language with its arguments, which the
        caller gives as HTML (escaped: names through :func:`_e`). The templates, English and
        Chinese, hold no character HTML would read as markup (``<``, ``&``)."""
        return phrase(template, self.language, **args)

    def muted(self, said: str) -> None:
        """A sentence of the page (HTML) set apart as a note."""
        self.w(f'<p class="muted">{said}</p>\n')

    def unreadable(self, name: str) -> None:
        self.muted(self.say("The text of {name} could not be read again (changed, moved or "
                            "unreadable since the scan).", name=_e(name)))

    def compare(self, ref_name: str, name: str, ref_text: str | None,
                other: str | None) -> None:
        """A copy against its reference: the diff, or why there is none."""
        if ref_text is None or other is None:
            self.unreadable(ref_name if ref_text is None else name)
        else:
            self.diff(ref_name, name, ref_text, other)

    def diff(self, ref_name: str, name: str, left: str, right: str) -> None:
        cut = len(left) > self.max_chars or len(right) > self.max_chars
        res = _diff.aligned_diff(left[:self.max_chars], right[:self.max_chars])
        notes = []
        if cut:
            notes.append(self.say("Only the first {count} characters of each text are "
                                  "compared.", count=f"{self.max_chars:,}"))
        if res.truncated:  # the words of ``res.message``, in the report's language
            notes.append(self.say("Only the first {count} lines of each text are compared.",
                                  count=f"{res.max_lines:,}"))
        if res.coarse:
            notes.append(self.t("Some long changed lines are marked as a whole, without "
                                "detail."))
        s = res.stats
        counts = self.say("{changed} changed, {added} added, {removed} removed rows.",
                          changed=s.changed, added=s.added, removed=s.removed)
        self.muted(" ".join([counts, *notes]))
        if s.identical:
            self.muted(self.t("No differences line by line (the texts differ only in what the "
                              "comparison ignores)."))
            return
        w = self.w
        w('<table class="diff"><colgroup><col class="no"><col><col class="no"><col>'
          f'</colgroup>\n<tr><th></th><th class="path">{_e(ref_name)}</th><th></th>'
          f'<th class="path">{_e(name)}</th></tr>\n')
        rows = res.rows
        show = _shown(rows, self.context)
        k = 0
        while k < len(rows):
            if not show[k]:
                j = k
                while j < len(rows) and not show[j]:
                    j += 1
                folded = (self.t("⋯ 1 unchanged row ⋯") if j - k == 1
                          else self.say("⋯ {count} unchanged rows ⋯", count=f"{j - k:,}"))
                w(f'<tr class="skip"><td colspan="4">{folded}</td></tr>\n')
                k = j
                continue
            row = rows[k]
            w(f'<tr class="{row.kind}"><td class="n">{row.left_no or ""}</td>'
              f'<td class="l">{_marked(row.left, row.left_spans)}</td>'
              f'<td class="n">{row.right_no or ""}</td>'
              f'<td class="r">{_marked(row.right, row.right_spans)}</td></tr>\n')
            k += 1
        w("</table>\n")


def _shown(rows: tuple[_diff.DiffRow, ...], context: int) -> list[bool]:
    show = [False] * len(rows)
    for k, row in enumerate(rows):
        if row.kind != "equal":
            for j in range(max(0, k - context), min(len(rows), k + context + 1)):
                show[j] = True
    return show


#: What :func:`html.escape` changes (with ``quote=True``).
_ESCAPED = re.compile("[&<>\"']")


def _marked(text: str | None, spans: tuple[_diff.Span, ...]) -> str:
    """A row's text for the page with its changed ``spans`` marked: :func:`_t` of each piece,
    put together with fewer calls (a 200,000-file page marks 48,000 rows in 180,000 pieces):
    :func:`display` once per row (it keeps every offset: one character for one), and no
    escaping at all for the rows that hold nothing to escape."""
    if text is None:
        return ""
    if not spans:
        return _t(text)
    text = display(text)
    esc = html.escape if _ESCAPED.search(text) else str
    out = []
    pos = 0
    for s in spans:
        out.append(esc(text[pos:s.start]))
        out.append('<span class="c">')
        out.append(esc(text[s.start:s.end]))
        out.append("</span>")
        pos = s.end
    out.append(esc(text[pos:]))
    return "".join(out)


#: Members of one group to compare with its reference: the reference's path and name, then
#: each member's.
Part = tuple[str, str, tuple[tuple[str, str], ...]]

#: A task: parts of consecutive groups; the page's settings; what the scan knew of those of
#: their files that are text files (:func:`default_text_of`).
Task = tuple[tuple[Part, ...], int, int, int, str, tuple[tuple[str, Hint], ...]]


#: A comparison's HTML and the paths whose text could not be read again for it.
Compared = tuple[str, tuple[str, ...]]


def compare_task(task: Task) -> list[Compared]:
    """Run in a worker: each member of ``task``'s parts against its reference, as the page's
    HTML, in the parts' order."""
    parts_, max_bytes, max_chars, context, language, hints = task
    text_of = default_text_of(max_bytes, dict(hints))
    out: list[Compared] = []
    for ref_path, ref_name, members in parts_:
        ref_text = text_of(ref_path)
        for path, name in members:
            parts: list[str] = []
            other = text_of(path)
            DiffWriter(language, max_chars, context, parts.append).compare(
                ref_name, name, ref_text, other)
            unread = (((ref_path,) if ref_text is None else ())
                      + ((path,) if other is None else ()))
            out.append(("".join(parts), unread))
    return out


def task_parts(plan: Sequence[tuple[str, str, Sequence[tuple[str, str]]]],
               per_task: int) -> list[tuple[Part, ...]]:
    """``plan`` cut into tasks of at least ``per_task`` members where the groups allow it (the
    last may have fewer): small groups together, a big one in pieces of ``per_task``."""
    tasks: list[tuple[Part, ...]] = []
    now: list[Part] = []
    size = 0
    for ref_path, ref_name, members in plan:
        for i in range(0, len(members), per_task):
            some = tuple(members[i:i + per_task])
            now.append((ref_path, ref_name, some))
            size += len(some)
            if size >= per_task:
                tasks.append(tuple(now))
                now, size = [], 0
    if now:
        tasks.append(tuple(now))
    return tasks


class Ahead:
    """Comparisons computed ahead by a process pool, taken in the page's order.

    ``plan``: per group, the reference's path and name and the members to compare with it,
    in the page's order. The tasks go to the pool a few per worker ahead of the page, so that
    a long page does not hold every comparison's HTML at once. :meth:`take` gives a member's
    HTML (and the paths that could not be read again for it), or None when it was not planned
    or its task failed: the page then compares it itself, and the bytes are the same."""

    def __init__(self, pool: Executor, workers: int,
                 plan: Sequence[tuple[str, str, Sequence[tuple[str, str]]]],
                 settings: tuple[int, int, int, str],
                 idle: Callable[[], bool] | None = None,
                 hints: Mapping[str, Hint] | None = None,
                 gone: Callable[[], bool] | None = None) -> None:
        self.pool = pool
        #: whether one of the pool's workers has ended
        #: (:func:`neardup_core.pool_ends.worker_gone`)
        self.gone = gone
        #: called while the page waits for a comparison not computed yet (other work the page
        #: can do meanwhile), again until it returns False or the comparison is there
        self.idle = idle
        self.tasks: list[Task] = []
        hints = hints or {}
        self.where: dict[str, tuple[int, int]] = {}
        self.left: list[int] = []  # members not taken yet, per task
        for t, parts in enumerate(task_parts(plan, PER_TASK)):
            paths = [path for _, _, members in parts for path, _ in members]
            files = dict.fromkeys([*(ref for ref, _, _ in parts), *paths])
            known = tuple((p, hints[p]) for p in files if p in hints)
            self.tasks.append((parts, *settings, known))
            self.where.update((path, (t, k)) for k, path in enumerate(paths))
            self.left.append(len(paths))
        self.window = max(1, workers * QUEUED_PER_WORKER)
        self.futures: dict[int, Future[list[Compared]]] = {}
        self.sent = 0
        #: a worker was found gone while the page waited (:data:`LOST_CHECK_S`): the pool is
        #: to be killed, not waited for
        self.lost = False
        # The first tasks are sent from a thread of their own when the page has other work:
        # sending them starts the workers, which waits for the fork server to be up (0.4 s
        # when no scan of this process started it, as after a rescan answered from the cache)
        self._starting: threading.Thread | None = None
        if idle is None:
            self._send()
        else:
            self._starting = threading.Thread(target=self._send, name="neardup-page-workers",
                                              daemon=True)
            self._starting.start()

    def started(self) -> None:
        """Wait until the first tasks are sent (doing the page's other work meanwhile)."""
        starting = self._starting
        if starting is None:
            return
        if self.idle is not None:
            while starting.is_alive() and self.idle():
                pass
        starting.join()
        self._starting = None

    def close(self) -> None:
        """Before the pool is shut: no task is being sent any more."""
        self.idle = None
        self.started()

    def _send(self, upto: int = 0) -> None:
        while self.sent < len(self.tasks) and self.sent < upto + self.window:
            try:
                self.futures[self.sent] = self.pool.submit(compare_task, self.tasks[self.sent])
            except Exception:  # a broken or shut pool: the page compares the rest itself
                self.sent = len(self.tasks)
                return
            self.sent += 1

    def take(self, path: str) -> Compared | None:
        """The comparison of the member at ``path`` (None: compare it yourself)."""
        at = self.where.pop(path, None)
        if at is None:
            return None
        t, k = at
        self.started()
        self._send(t)
        self.left[t] -= 1
        future = self.futures.get(t) if self.left[t] else self.futures.pop(t, None)
        if future is None:
            return None
        if self.idle is not None:
            while not future.done() and self.idle():
                pass
        while True:
            try:
                got = future.result(timeout=LOST_CHECK_S)
                break
            except TimeoutError:
                if future.done():  # the task's own TimeoutError
                    return None
                if self.gone is not None and self.gone():  # the page compares the rest
                    self.lost = True
                    self.sent = len(self.tasks)
                    self.where.clear()
                    return None
            except Exception:  # a worker lost, or a task that failed: compared by the page
                return None
        return got[k] if k < len(got) else None


def pool_workers(jobs: int, comparisons: int) -> int:
    """How many worker processes a page with ``comparisons`` to compute ahead uses (0: none)."""
    if comparisons < AHEAD_FROM:
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)
    n = min(jobs or cores, cores, -(-comparisons // PER_TASK))
    return n if n >= 2 else 0
