"""The HTML report, for people (``write_html``).

One self-contained file, without scripts or external assets, that collapses with ``<details>``
and shows each member's differences from its reference. Names, paths and messages there show
control and direction characters as escapes (:mod:`neardup_core.visible`): a name with a
right-to-left override cannot read as another's. (The JSON report keeps names exact.)

The groups are streamed from the result's flat group table, a block of groups at a time: the
member tables put together a column at a time (:mod:`.columns`), each group's differences from
its reference after its table.
"""

from __future__ import annotations

import contextlib
import functools
import html
import itertools
import math
import re
import sys
from collections.abc import Iterator, Sequence
from typing import IO

import numpy as np

from neardup_core.messages import phrase, word
from neardup_core.messages import render as render_message
from neardup_core.models import Document
from neardup_core.pairs.containment import shared_passages
from neardup_core.report.columns import (
    blocks,
    decimal_texts,
    interleave,
    pick,
    split_paths,
    take,
)
from neardup_core.report.common import LocalClock, collector_paused
from neardup_core.report.destination import Destination, open_destination
from neardup_core.report.html_diffs import (
    Ahead,
    DiffWriter,
    Hint,
    TextOf,
    _e,
    _t,
    default_text_of,
    pool_workers,
    txt_hint,
)
from neardup_core.report.wording import group_labels, percent, written_now
from neardup_core.result import ScanResult
from neardup_core.visible import visible_all

_CSS = """
:root { --fg:#1d2330; --muted:#5b6475; --line:#d9dde5; --ref:#1c5fb8; --del:#ffe3e3;
  --delc:#f7a8a8; --ins:#e2f6e2; --insc:#9bd99b; --rep:#fff6db; }
body { font-family: system-ui, -apple-system, "Segoe UI", "PingFang SC", "Hiragino Sans GB",
  "Microsoft YaHei", "Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei",
  sans-serif; color: var(--fg); margin: 2em auto; max-width: 1400px; padding: 0 1em;
  line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { margin-top: 1.6em; font-size: 1.25em; }
.muted { color: var(--muted); }
.banner { background: #fff1cc; border: 1px solid #e6c15c; padding: .6em 1em; border-radius: 6px; }
table { border-collapse: collapse; }
table.kv td, table.kv th { text-align: left; padding: .15em 1em .15em 0; vertical-align: top; }
table.members, table.problems { width: 100%; margin: .4em 0; }
table.members th, table.members td, table.problems th, table.problems td {
  border-bottom: 1px solid var(--line); padding: .3em .5em; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.ref td.name { color: var(--ref); font-weight: 600; }
.badge { font-size: .8em; background: var(--ref); color: #fff; border-radius: 3px;
  padding: 0 .35em; margin-left: .4em; font-weight: normal; }
details.group { border: 1px solid var(--line); border-radius: 6px; margin: .8em 0;
  padding: .4em .8em; }
details.group > summary { cursor: pointer; font-weight: 600; }
details.cmp { margin: .4em 0 .8em 0; } details.cmp > summary { cursor: pointer; }
.path { word-break: break-all; }
.skipped { display: block; font-size: .85em; font-weight: normal; color: var(--muted); }
table.diff { width: 100%; table-layout: fixed; font-family: ui-monospace, "SFMono-Regular",
  Consolas, "Noto Sans Mono CJK SC", "Sarasa Mono SC", "Microsoft YaHei", monospace;
  font-size: .86em; }
table.diff col.no { width: 3.5em; }
table.diff td { padding: 0 .4em; white-space: pre-wrap; word-break: normal;
  overflow-wrap: break-word; line-break: auto; vertical-align: top; }
table.diff td.n { color: var(--muted); text-align: right; user-select: none; }
tr.delete td.l, tr.replace td.l { background: var(--del); }
tr.insert td.r, tr.replace td.r { background: var(--ins); }
tr.replace td.l .c { background: var(--delc); } tr.replace td.r .c { background: var(--insc); }
table.passages { width: 100%; table-layout: fixed; font-size: .9em; }
table.passages td { border-bottom: 1px solid var(--line); padding: .3em .5em; vertical-align: top;
  white-space: pre-wrap; word-break: break-word; }
table.passages td.n { width: 2.5em; color: var(--muted); text-align: right; }
mark { background: #ffe79a; }
tr.skip td { color: var(--muted); text-align: center; background: #f4f5f7; font-style: italic; }
"""


#: The most memory the groups past the last comparison may take that a page puts together
#: ahead while it waits for the workers' comparisons: the whole rest of a page of 200,000
#: files (67 million characters in all, a byte each when every name is Latin, two or four
#: when one is not).
EARLY_MAX_BYTES = 128 * 1024 * 1024

#: Scores take few distinct values (MinHash estimates): each is put into words once.
_percent = functools.lru_cache(maxsize=65_536)(percent)


def _size(n: int, byte_word: str = "bytes") -> str:
    """A size in words (digits, a dot and a unit: nothing to escape); ``byte_word`` is the
    unit under a kilobyte in the report's language."""
    v = float(n)
    for unit in ("bytes", "KB", "MB", "GB"):
        if v < 1024 or unit == "GB":
            return f"{int(v)} {byte_word}" if unit == "bytes" else f"{v:.1f} {unit}"
        v /= 1024
    return f"{n} {byte_word}"


@collector_paused
def write_html(result: ScanResult, fp_or_path: Destination, *, text_of: TextOf | None = None,
               max_diff_chars: int = 200_000, max_diffs: int = 1_000, context: int = 3,
               language: str = "en", written: str | None = None, jobs: int | None = None,
               unread: list[str] | None = None) -> None:
    """One self-contained HTML page: summary, settings, groups with scores and diffs, problems.

    ``language`` ("en" or "zh_CN") words the headings, column titles, notes and problem
    messages (:mod:`neardup_core.messages`); names, paths and texts are the files' own.
    ``written`` is the local time the page says it was written (now, as
    ``YYYY-MM-DD HH:MM:SS``, by default).

    ``text_of(path)`` returns a document's text for the diffs (None when it cannot); by default
    files are extracted again. Each text is cut at ``max_diff_chars`` characters, unchanged
    stretches are folded to ``context`` rows around each change, and diffs stop after
    ``max_diffs`` members; each cut is said in the page.

    With the default ``text_of``, a page with many comparisons has them computed ahead by
    ``jobs`` worker processes (0: one per core; 1: none; by default as many as the scan was
    allowed, its ``options.jobs``), the same bytes either way
    (:mod:`.html_diffs`). ``unread``, when given, gets the path of every file whose text the
    page could not read again (its page then says so where the diff would be).
    """
    if jobs is None:
        jobs = result.options.jobs
    ahead = text_of is None and jobs != 1
    hints: dict[str, Hint] = {}  # what the scan knew of the text files the page reads again
    if text_of is None:
        from neardup_core.scan.isolated import read_isolated

        text_of = default_text_of(result.options.max_size, hints, read_isolated)
    with open_destination(fp_or_path) as fp:
        page = _Html(result, fp, text_of, max_diff_chars, max_diffs, context, language,
                     written, jobs=jobs if ahead else 1, hints=hints)
        page.write()
        if unread is not None:
            unread.extend(page.unread)



class _Html(DiffWriter):
    def __init__(self, result: ScanResult, fp: IO[str], text_of: TextOf, max_chars: int,
                 max_diffs: int, context: int, language: str = "en",
                 written: str | None = None, *, jobs: int = 1,
                 hints: dict[str, Hint] | None = None) -> None:
        super().__init__(language, max_chars, context, fp.write)
        self.r = result
        self.hints = hints if hints is not None else {}  # filled for the texts read again
        self.written = written or written_now()
        self.unread: list[str] = []  # files whose text could not be read again

        def read_again(path: str) -> str | None:
            text = text_of(path)
            if text is None:
                self.unread.append(path)
            return text

        self.text_of = read_again
        self.diffs_left = max_diffs
        self.max_diffs = max_diffs
        # The groups past the last comparison (when the comparisons run out before the
        # groups do, see planned()) need no worker: while the page waits for one, it puts
        # them together ahead (_put_together_ahead), kept here until their turn.
        self.diff_end: int | None = None
        self.later: list[tuple[int, int]] = []
        self.early: dict[tuple[int, int], str] = {}
        self.early_bytes = 0
        self.early_at = 0
        self.spent_early = 0  # what those groups took off diffs_left, counted at the end
        self.jobs = jobs  # worker processes for the comparisons (see write_html; 1: none)
        self.ahead: Ahead | None = None
        self.clock = LocalClock()
        self.bytes_word = self.t("bytes")  # sizes under a kilobyte, once
        self.shared: dict[str, str] = {}  # folders, formats, encodings escaped once each
        # what the member rows share, worded once (:meth:`group_block`)
        self.folder_cells: dict[str, str] = {}
        self.kind_cells: dict[tuple[str, str | None], str] = {}
        self.badges: dict[str | None, str] = {}
        self.ref_badge = f'<span class="badge">{self.t("reference")}</span>'
        self.dup_row = '<tr class="dup"><td class="name path">'
        heads = ("Name", "Folder", "Size", "Modified", "Format", "Encoding", "Similarity",
                 "Distance", "Jaccard")
        self.table_head = ('<table class="members"><tr>'
                           + "".join(f"<th>{self.t(h)}</th>" for h in heads) + "</tr>\n")
        self.title = _template(word("Group {group} · {count} files · {label} · {name}",
                                    language), "group", "count", "label", "name")
        self.same = _template(word("{name}: same text as the reference after normalisation "
                                   "(spacing, width, punctuation).", language), "name")

    def once(self, s: str) -> str:
        """:func:`_e` of a value many rows share (a folder, a format, an encoding)."""
        got = self.shared.get(s)
        if got is None:
            got = self.shared[s] = _e(s)
        return got

    def write(self) -> None:
        r = self.r
        w = self.w
        t = self.t
        lang = "zh-CN" if self.language == "zh_CN" else "en"
        w(f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
          '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
          f'<title>{t("neardup report")}</title>\n<style>')
        w(_CSS)
        w(f"</style>\n</head>\n<body>\n<h1>{t('neardup report')}</h1>\n")
        roots = ", ".join(f'<span class="path">{_e(x)}</span>' for x in r.roots)
        written = ("Written {when} · 1 folder: {roots}" if len(r.roots) == 1
                   else "Written {when} · {count} folders: {roots}")
        said = self.say(written, when=_e(self.written),
                        count=f"{len(r.roots):,}", roots=roots)
        self.muted(said)
        if r.partial:
            cut = t("This scan was cut short: the results are incomplete (see the notes below).")
            w(f'<p class="banner">{cut}</p>\n')
        self.summary()
        self.notes()
        self.settings()
        self.groups()
        self.excerpts()
        self.problems()
        w("</body>\n</html>\n")

    def summary(self) -> None:
        r = self.r
        rows = [("Files compared", f"{len(r.documents):,}"), ("Groups", f"{len(r.group_table):,}"),
                ("Duplicates (not references)", f"{r.duplicate_count:,}"),
                ("Problems", f"{len(r.problems):,}"),
                *((("Excerpts (mostly inside another file)", f"{len(r.excerpts()):,}"),)
                  if r.options.excerpt_containment is not None else ()),
                ("Threshold", phrase("{share} ({mode} groups)", self.language,
                                     share=f"{r.threshold:.0%}",
                                     mode=self.t(str(r.group_mode)))),
                ("Time", phrase("{time} s", self.language, time=f"{r.seconds:.1f}"))]
        self.w(f'<h2 id="summary">{self.t("Summary")}</h2>\n<table class="kv">\n')
        for k, v in rows:
            self.w(f"<tr><th>{_e(self.t(k))}</th><td>{_e(v)}</td></tr>\n")
        self.w("</table>\n")

    def notes(self) -> None:
        if not self.r.notes:
            return
        self.w(f'<h2 id="notes">{self.t("Notes")}</h2>\n<ul>\n')
        for n in self.r.notes:
            self.w(f"<li>{_e(render_message(n, self.language))}</li>\n")
        self.w("</ul>\n")

    def settings(self) -> None:
        self.w(f'<details><summary>{self.t("Settings")}</summary>\n<table class="kv">\n')
        for k, v in self.r.options.to_dict().items():
            shown = ", ".join(map(str, v)) if isinstance(v, list) else ("–" if v is None else v)
            self.w(f"<tr><th>{_e(k)}</th><td>{_e(shown)}</td></tr>\n")
        self.w("</table>\n</details>\n")

    def groups(self) -> None:
        table = self.r.group_table
        self.w(f'<h2 id="groups">{self.t("Groups")} ({len(table):,})</h2>\n')
        if not len(table):
            self.muted(self.t("No near-duplicates at this threshold."))
        with self.comparing_ahead():
            end = len(table) if self.ahead is None or self.diff_end is None else self.diff_end
            self.later = [(end + g0, end + g1) for g0, g1 in blocks(table.offsets[end:])]
            for g0, g1 in blocks(table.offsets[:end + 1]):
                self.w(self.group_block(g0, g1))
            for run in self.later:
                early = self.early.pop(run, None)
                self.w(early if early is not None else self.group_block(*run))
        self.diffs_left -= self.spent_early
        if self.diffs_left < 0:
            cut = self.say("Differences are shown for the first {count} files only.",
                           count=f"{self.max_diffs:,}")
            self.w(f'<p class="banner">{cut}</p>\n')

    def group_block(self, g0: int, g1: int) -> str:
        """Groups ``g0`` to ``g1`` (excluded), each a ``<details>`` with its members' table
        and their differences from the reference: the table rows put together a column at a
        time (:mod:`.columns`), the differences group by group."""
        r = self.r
        table = r.group_table
        offs = table.offsets
        lo, hi = int(offs[g0]), int(offs[g1])
        starts = offs[g0:g1] - lo
        head = np.zeros(hi - lo, dtype=bool)
        head[starts] = True
        block = pick(r.documents, table.members[lo:hi])
        folders, names = split_paths([d.path for d in block])
        names = html_all(visible_all(names))
        for f in set(folders) - self.folder_cells.keys():
            self.folder_cells[f] = f'</td><td class="path">{_e(f)}</td><td class="num">'
        kinds = [(d.format, d.encoding) for d in block]
        for key in set(kinds) - self.kind_cells.keys():
            self.kind_cells[key] = (f"</td><td>{self.once(key[0])}</td>"
                                    f"<td>{self.once(key[1] or '–')}</td><td class=\"num\">")
        notes = [d.skipped for d in block]
        for note in set(notes) - self.badges.keys():
            self.badges[note] = ("" if not note else '<span class="skipped">'
                                 f"{_e(render_message(note, self.language))}</span>")
        badges = list(map(self.badges.__getitem__, notes))
        for k in starts.tolist():
            badges[k] = self.ref_badge + badges[k]
        opening = self.openings(g0, g1, [names[k] for k in starts.tolist()])
        rows = [self.dup_row] * (hi - lo)
        for k, text in zip(starts.tolist(), opening, strict=True):
            rows[k] = text
        ends = self.ends(g0, g1, block, names, head)
        return interleave([
            rows, names, badges, list(map(self.folder_cells.__getitem__, folders)),
            _sizes([d.size for d in block], self.bytes_word),
            self.clock.plain_many([d.mtime for d in block]),
            list(map(self.kind_cells.__getitem__, kinds)),
            decimal_texts(table.similarity[lo:hi], 1, _similarity, scale=100.0,
                          below_one_at_most=999, dress=_then_num),
            take(_DISTANCES, table.distance[lo:hi]),
            decimal_texts(table.jaccard[lo:hi], 1, _jaccard, scale=100.0,
                          below_one_at_most=999, dress=_row_end, nan=_jaccard(math.nan)),
            ends])

    def _put_together_ahead(self) -> bool:
        """While the page waits for a worker's comparison: the next block of groups past the
        last comparison, put together now and kept until its turn (the same text: those
        groups show no differences, whenever they are written). False when none is left or
        :data:`EARLY_MAX_BYTES` are kept. On two cores, a page of 200,000 files waited for its
        thousand comparisons before writing the 43,000 groups after them."""
        if self.early_at >= len(self.later) or self.early_bytes >= EARLY_MAX_BYTES:
            return False
        run = self.later[self.early_at]
        self.early_at += 1
        left, self.diffs_left = self.diffs_left, -1  # no comparison is made for them
        try:
            text = self.group_block(*run)
        finally:
            self.spent_early += -1 - self.diffs_left
            self.diffs_left = left
        self.early[run] = text
        self.early_bytes += sys.getsizeof(text)
        return True

    def openings(self, g0: int, g1: int, ref_names: list[str]) -> list[str]:
        """Each group's opening, down to its reference's first cell."""
        table = self.r.group_table
        sizes = np.diff(table.offsets[g0:g1 + 1]).tolist()
        labels = group_labels(table.weakest[g0:g1], table.exact[g0:g1], self.r.group_mode,
                              self.language)
        tail = self.table_head + '<tr class="ref"><td class="name path">'
        title = self.title
        shown = {label: _e(label) for label in set(labels)}  # a few, for thousands of groups
        return [f'<details class="group" open id="g{g}"><summary>'
                f"{title.format(group=g, count=n, label=shown[label], name=name)}</summary>\n"
                f"{tail}"
                for g, n, label, name in zip(range(g0 + 1, g1 + 1), sizes, labels, ref_names,
                                             strict=True)]

    def ends(self, g0: int, g1: int, block: Sequence[Document], names: list[str],
             head: np.ndarray) -> list[str]:
        """What follows each member's row: after a group's last, the end of its table, what
        each copy has against the reference (the same text, or the differences while
        ``max_diffs`` lasts) and the end of the group."""
        offs = self.r.group_table.offsets
        lo = int(offs[g0])
        bounds = (offs[g0:g1 + 1] - lo).tolist()
        hashes = np.empty(len(block), dtype=object)
        hashes[:] = [d.text_hash for d in block]
        same = hashes == hashes[np.repeat(bounds[:-1], np.diff(bounds))]
        same &= ~head
        different = ~same & ~head
        same_count = np.add.reduceat(same, bounds[:-1]).tolist()
        different_count = np.add.reduceat(different, bounds[:-1]).tolist()
        plain = "</table>\n</details>\n"
        out = [""] * len(block)
        for g, (a, b) in enumerate(itertools.pairwise(bounds)):
            if same_count[g] or (different_count[g] and self.diffs_left > 0):
                out[b - 1] = f"</table>\n{self.comparisons(block[a:b], names[a:b])}</details>\n"
            else:
                self.diffs_left -= different_count[g]
                out[b - 1] = plain
        return out

    @contextlib.contextmanager
    def comparing_ahead(self) -> Iterator[None]:
        """While the groups are written, their comparisons computed ahead by worker processes
        (:class:`~.html_diffs.Ahead`), when there are enough of them to pay for the workers."""
        plan = self.planned() if self.jobs != 1 else []
        workers = pool_workers(self.jobs, sum(len(m) for _, _, m in plan)) if plan else 0
        if not workers:
            yield
            return
        pool = None
        records = None
        try:
            from neardup_core.extract.limits import limits_now, make_records
            from neardup_core.pool_ends import worker_gone
            from neardup_core.scan.pool import armed_pool

            # the workers read PDFs within the scan's per-file limits, as the scan's do: past
            # them a worker ends, and the page reads what it held itself, within them too
            # (:func:`neardup_core.scan.isolated.read_isolated`)
            records = make_records()
            pool = armed_pool(workers, limits_now(records))
            self.ahead = Ahead(pool, workers, plan, (self.r.options.max_size, self.max_chars,
                                                     self.context, self.language),
                               idle=self._put_together_ahead, hints=self.hints,
                               gone=functools.partial(worker_gone, pool))
        except (OSError, RuntimeError):  # no processes here: the page compares them itself
            self.ahead = None
        try:
            yield
        finally:
            ahead, self.ahead = self.ahead, None
            if ahead is not None:
                ahead.close()
            if pool is not None and ahead is not None and ahead.lost:
                from neardup_core.pool_ends import kill_pool

                kill_pool(pool)  # its manager thread may wait for the lost worker's message
            elif pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
            if records is not None:
                from neardup_core.extract.limits import remove_records

                remove_records(records)

    def hint(self, *docs: Document) -> None:
        """Tell the page's reading what the scan knew of these documents (a text file's
        codec is not detected again while the file is unchanged: :func:`default_text_of`)."""
        for d in docs:
            known = txt_hint(d)
            if known is not None:
                self.hints[d.path] = known

    def planned(self) -> list[tuple[str, str, list[tuple[str, str]]]]:
        """The comparisons the page will show, group by group: each group's reference (path,
        name) and its members whose text differs from it (path, name), the first
        ``max_diffs`` of them in the page's order (as :meth:`ends` and :meth:`comparisons`
        count them)."""
        table = self.r.group_table
        docs = self.r.documents
        offs = table.offsets.tolist()
        members = table.members
        left = self.diffs_left
        plan: list[tuple[str, str, list[tuple[str, str]]]] = []
        for g in range(len(offs) - 1):
            if left <= 0:  # no group from here on shows differences
                self.diff_end = g
                break
            group = [docs[i] for i in members[offs[g]:offs[g + 1]].tolist()]
            ref = group[0]
            other = [d for d in group[1:] if d.text_hash != ref.text_hash][:left]
            left -= len(other)
            if other:
                plan.append((ref.path, ref.name, [(d.path, d.name) for d in other]))
                self.hint(ref, *other)
        return plan

    def comparisons(self, members: Sequence[Document], names: list[str]) -> str:
        """What each copy of a group has against the reference (``members[0]``): the same
        text, or its differences while ``max_diffs`` lasts."""
        parts: list[str] = []
        saved, self.w = self.w, parts.append  # the diffs write where the group's text goes
        try:
            ref = members[0]
            ref_text: str | None = None
            fetched = False
            for d, name in zip(members[1:], names[1:], strict=True):
                if d.text_hash == ref.text_hash:
                    parts.append(f'<p class="muted">{self.same.format(name=name)}</p>\n')
                    continue
                self.diffs_left -= 1
                if self.diffs_left < 0:
                    continue
                label = self.say("Differences: {name} against the reference", name=name)
                parts.append(f'<details class="cmp"><summary>{label}</summary>\n')
                done = self.ahead.take(d.path) if self.ahead is not None else None
                if done is not None:
                    parts.append(done[0])
                    self.unread.extend(done[1])
                else:
                    self.hint(ref, d)
                    if not fetched:
                        ref_text, fetched = self.text_of(ref.path), True
                    self.compare(ref.name, d.name, ref_text, self.text_of(d.path))
                parts.append("</details>\n")
        finally:
            self.w = saved
        return "".join(parts)

    def excerpts(self) -> None:
        """Each excerpt: how much of the part lies in the whole, and every shared passage
        beside the place it has in the whole, highlighted in both."""
        r = self.r
        if r.options.excerpt_containment is None:
            return
        ex = r.excerpts()
        if not len(ex):
            return
        docs = r.documents
        about = self.say("Documents at least {share} of whose text lies inside another. They "
                         "are not copies: nothing marks them for removal.",
                         share=f"{r.excerpt_cut:.0%}")
        self.w(f'<h2 id="excerpts">{self.say("Excerpts ({count})", count=f"{len(ex):,}")}'
               f'</h2>\n<p class="muted">{about}</p>\n')
        for p, wh, c, s in zip(ex.part.tolist(), ex.whole.tolist(), ex.containment.tolist(),
                               ex.similarity.tolist(), strict=True):
            part, whole = docs[p], docs[wh]
            head = self.say("{share} of {part} is inside {whole} (similarity {similarity})",
                            share=_e(percent(c)),
                            part=f'<span class="path">{_e(part.name)}</span>',
                            whole=f'<span class="path">{_e(whole.name)}</span>',
                            similarity=_e(percent(s)))
            self.w(f'<details class="group"><summary>{head}</summary>\n'
                   f'<p class="muted path">{_e(part.path)}<br>{_e(whole.path)}</p>\n')
            self.diffs_left -= 1
            if self.diffs_left >= 0:
                self.passages(part, whole)
            self.w("</details>\n")

    def passages(self, part: Document, whole: Document) -> None:
        a, b = self.text_of(part.path), self.text_of(whole.path)
        if a is None or b is None:
            self.unreadable(part.name if a is None else whole.name)
            return
        a, b = a[:self.max_chars], b[:self.max_chars]
        spans = shared_passages(a, b)
        if not spans:
            self.muted(self.t("No passage of a few lines is shared word for word (the shared "
                              "text is spread in short pieces)."))
            return
        w = self.w
        w('<table class="passages"><tr><th></th>'
          f'<th class="path">{_e(part.name)}</th><th class="path">{_e(whole.name)}</th></tr>\n')
        for k, ((ps, pe), (ws, we)) in enumerate(spans[:_PASSAGES], 1):
            w(f'<tr><td class="n">{k}</td><td>{_context(a, ps, pe)}</td>'
              f"<td>{_context(b, ws, we)}</td></tr>\n")
        w("</table>\n")
        if len(spans) == _PASSAGES + 1:
            self.muted(self.t("1 more shared passage."))
        elif len(spans) > _PASSAGES:
            more = self.say("{count} more shared passages.", count=f"{len(spans) - _PASSAGES:,}")
            self.muted(more)

    def problems(self) -> None:
        probs = self.r.problems
        t = self.t
        self.w(f'<h2 id="problems">{t("Problems")} ({len(probs):,})</h2>\n')
        if not probs:
            self.muted(t("Every file could be read."))
            return
        self.w(f'<table class="problems"><tr><th>{t("File")}</th><th>{t("Kind")}</th>'
               f'<th>{t("Message")}</th></tr>\n')
        for p in probs:
            self.w(f'<tr><td class="path">{_e(p.path)}</td><td>{self.t(str(p.kind))}</td>'
                   f"<td>{_e(render_message(p.message, self.language))}</td></tr>\n")

def _template(worded: str, *names: str) -> str:
    """A sentence of :func:`~neardup_core.messages.phrase` as a :meth:`str.format` string
    with the same result for arguments ``names`` (their ``{name}`` slots filled, nothing else
    read as one): a sentence a report writes for every group is worded once."""
    parts = re.split(r"\{(\w+)\}", worded)
    return "".join(f"{{{p}}}" if k % 2 and p in names
                   else (f"{{{p}}}" if k % 2 else p).replace("{", "{{").replace("}", "}}")
                   for k, p in enumerate(parts))


def html_all(texts: list[str]) -> list[str]:
    """``html.escape(t, quote=True)`` of each text (shown names: no NUL in them), the column
    escaped at once when any needs it."""
    joined = "\0".join(texts)
    if not any(c in joined for c in "&<>\"'"):
        return texts
    return html.escape(joined, quote=True).split("\0")


def _sizes(sizes: list[int], byte_word: str) -> list[str]:
    """``_size(n, byte_word)`` of each size and the cell boundary after it, the kilobytes,
    megabytes and gigabytes worded with numpy (:func:`.columns.decimal_texts`)."""
    v = np.array(sizes, dtype=np.float64)
    unit = np.zeros(v.shape, dtype=np.int64)
    for _ in range(3):  # as _size divides by 1024 while the size is 1024 or more, to GB
        up = (v >= 1024) & (unit < 3)
        v = np.where(up, v / 1024, v)
        unit += up
    out = np.empty(v.shape, dtype=object)
    small = np.flatnonzero(unit == 0)
    out[small] = [f"{sizes[i]} {byte_word}</td><td>" for i in small.tolist()]
    for u, name in ((1, "KB"), (2, "MB"), (3, "GB")):
        where = np.flatnonzero(unit == u)
        if where.size:
            out[where] = decimal_texts(v[where], 1, lambda x, name=name: f"{x:.1f} {name}"
                                       "</td><td>", dress=lambda t, name=name:
                                       f"{t} {name}</td><td>")
    return out.tolist()


def _similarity(x: float) -> str:
    return f'{_percent(x)}</td><td class="num">'


def _then_num(text: str) -> str:
    return f'{text}%</td><td class="num">'


def _jaccard(x: float) -> str:
    return f"{'–' if x != x else _percent(x)}</td></tr>\n"


def _row_end(text: str) -> str:
    return f"{text}%</td></tr>\n"


_DISTANCES = [f'{d}</td><td class="num">' for d in range(256)]

#: Shared passages shown per excerpt, and characters of text shown around and inside each.
_PASSAGES = 30
_AROUND = 80
_INSIDE = 1500


def _context(text: str, start: int, end: int) -> str:
    """The passage text[start:end] highlighted, with a little of the text around it."""
    lo = max(0, start - _AROUND)
    hi = min(len(text), end + _AROUND)
    inside = text[start:end]
    if len(inside) > _INSIDE:
        half = _INSIDE // 2
        inside_html = f"{_t(inside[:half])} … {_t(inside[-half:])}"
    else:
        inside_html = _t(inside)
    before = ("…" if lo else "") + _t(text[lo:start])
    after = _t(text[end:hi]) + ("…" if hi < len(text) else "")
    return f"{before}<mark>{inside_html}</mark>{after}"
