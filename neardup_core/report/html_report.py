"""The HTML report, for people (``write_html``).

One self-contained file, without scripts or external assets, that collapses with ``<details>``
and shows each member's differences from its reference. Names, paths and messages there show
control and direction characters as escapes (:mod:`neardup_core.visible`): a name with a
right-to-left override cannot read as another's. (The JSON and CSV reports keep names exact.)
"""

from __future__ import annotations

import functools
import html
import os
import time
from collections.abc import Callable
from typing import IO

from neardup_core import diff as _diff
from neardup_core.messages import phrase, word
from neardup_core.messages import render as render_message
from neardup_core.models import Document, Group
from neardup_core.pairs.containment import shared_passages
from neardup_core.report.common import (
    Destination,
    LocalClock,
    display,
    open_destination,
)
from neardup_core.report.wording import percent, weakest_label
from neardup_core.result import ScanResult
from neardup_core.visible import visible

TextOf = Callable[[str], str | None]
"""A document's text by its path, or None when it cannot be read (the diffs' source)."""

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


def default_text_of(max_bytes: int) -> TextOf:
    """The ``text_of`` that :func:`write_html` uses when given none: re-extract a file's text
    for the diffs (files up to ``max_bytes``); any failure means "no text", never an error."""
    try:
        from neardup_core.extract import extract  # type: ignore[attr-defined]
    except ImportError:
        return lambda path: None

    def text_of(path: str) -> str | None:
        try:
            got = extract(path, max_bytes=max_bytes)
        except Exception:  # a report must not fail because one file changed since the scan
            return None
        text = getattr(got, "text", None)
        return text if isinstance(text, str) else None

    return text_of


def _e(s: object) -> str:
    """A name, path, message or label for the page: escaped, its control characters shown."""
    return html.escape(visible(str(s)), quote=True)


def _t(s: str) -> str:
    """A piece of a document's text for the page: escaped, its tabs and the rest kept."""
    return html.escape(display(s), quote=True)


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


def write_html(result: ScanResult, fp_or_path: Destination, *, text_of: TextOf | None = None,
               max_diff_chars: int = 200_000, max_diffs: int = 1_000, context: int = 3,
               language: str = "en") -> None:
    """One self-contained HTML page: summary, settings, groups with scores and diffs, problems.

    ``language`` ("en" or "zh_CN") words the headings, column titles, notes and problem
    messages (:mod:`neardup_core.messages`); names, paths and texts are the files' own.

    ``text_of(path)`` returns a document's text for the diffs (None when it cannot); by default
    files are extracted again. Each text is cut at ``max_diff_chars`` characters, unchanged
    stretches are folded to ``context`` rows around each change, and diffs stop after
    ``max_diffs`` members; each cut is said in the page.
    """
    if text_of is None:
        text_of = default_text_of(result.options.max_size)
    with open_destination(fp_or_path) as fp:
        _Html(result, fp, text_of, max_diff_chars, max_diffs, context, language).write()


class _Html:
    def __init__(self, result: ScanResult, fp: IO[str], text_of: TextOf, max_chars: int,
                 max_diffs: int, context: int, language: str = "en") -> None:
        self.r = result
        self.language = language
        self.w = fp.write
        self.text_of = text_of
        self.max_chars = max_chars
        self.diffs_left = max_diffs
        self.max_diffs = max_diffs
        self.context = context
        self.clock = LocalClock()
        self.bytes_word = self.t("bytes")  # sizes under a kilobyte, once
        self.shared: dict[str, str] = {}  # folders, formats, encodings escaped once each

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
        said = self.say(written, when=_e(time.strftime("%Y-%m-%d %H:%M:%S")),
                        count=f"{len(r.roots):,}", roots=roots)
        w(f'<p class="muted">{said}</p>\n')
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
        rows = [("Files compared", f"{len(r.documents):,}"), ("Groups", f"{len(r.groups):,}"),
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
        groups = self.r.groups
        self.w(f'<h2 id="groups">{self.t("Groups")} ({len(groups):,})</h2>\n')
        if not groups:
            self.w(f'<p class="muted">{self.t("No near-duplicates at this threshold.")}</p>\n')
        for g in groups:
            self.group(g)
        if self.diffs_left < 0:
            cut = self.say("Differences are shown for the first {count} files only.",
                           count=f"{self.max_diffs:,}")
            self.w(f'<p class="banner">{cut}</p>\n')

    def group(self, g: Group) -> None:
        docs = self.r.documents
        ref = docs[g.reference]
        tag = (word("exact copies", self.language) if g.exact
               else weakest_label(self.r.group_mode, g.weakest, self.language))
        head = self.say("Group {group} · {count} files · {label} · {name}", group=g.id,
                        count=len(g), label=_e(tag), name=_e(ref.name))
        self.w(f'<details class="group" open id="g{g.id}"><summary>{head}</summary>\n')
        heads = ("Name", "Folder", "Size", "Modified", "Format", "Encoding", "Similarity",
                 "Distance", "Jaccard")
        self.w('<table class="members"><tr>' + "".join(f"<th>{self.t(h)}</th>" for h in heads)
               + "</tr>\n")
        for k, m in enumerate(g.members):
            d = docs[m.doc]
            badge = f'<span class="badge">{self.t("reference")}</span>' if k == 0 else ""
            if d.skipped:  # what its reader could not compare, beside the file
                badge += (f'<span class="skipped">'
                          f'{_e(render_message(d.skipped, self.language))}</span>')
            jac = "–" if m.jaccard is None else _percent(m.jaccard)
            folder, name = os.path.split(d.path)
            self.w(f'<tr class="{"ref" if k == 0 else "dup"}"><td class="name path">'
                   f'{_e(name)}{badge}</td><td class="path">{self.once(folder)}</td>'
                   f'<td class="num">{_size(d.size, self.bytes_word)}</td>'
                   f'<td>{self.clock.plain(d.mtime)}</td>'
                   f"<td>{self.once(d.format)}</td><td>{self.once(d.encoding or '–')}</td>"
                   f'<td class="num">{_percent(m.similarity)}</td>'
                   f'<td class="num">{m.distance}</td><td class="num">{_e(jac)}</td></tr>\n')
        self.w("</table>\n")
        ref_text: str | None = None
        fetched = False
        for m in g.members[1:]:
            d = docs[m.doc]
            label = self.say("Differences: {name} against the reference", name=_e(d.name))
            if d.text_hash == ref.text_hash:
                same = self.say("{name}: same text as the reference after normalisation "
                                "(spacing, width, punctuation).", name=_e(d.name))
                self.w(f'<p class="muted">{same}</p>\n')
                continue
            self.diffs_left -= 1
            if self.diffs_left < 0:
                continue
            if not fetched:
                ref_text, fetched = self.text_of(ref.path), True
            other = self.text_of(d.path)
            self.w(f'<details class="cmp"><summary>{label}</summary>\n')
            if ref_text is None or other is None:
                self.unreadable(ref.name if ref_text is None else d.name)
            else:
                self.diff(ref, d, ref_text, other)
            self.w("</details>\n")
        self.w("</details>\n")

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
            none = self.t("No passage of a few lines is shared word for word (the shared text "
                          "is spread in short pieces).")
            self.w(f'<p class="muted">{none}</p>\n')
            return
        w = self.w
        w('<table class="passages"><tr><th></th>'
          f'<th class="path">{_e(part.name)}</th><th class="path">{_e(whole.name)}</th></tr>\n')
        for k, ((ps, pe), (ws, we)) in enumerate(spans[:_PASSAGES], 1):
            w(f'<tr><td class="n">{k}</td><td>{_context(a, ps, pe)}</td>'
              f"<td>{_context(b, ws, we)}</td></tr>\n")
        w("</table>\n")
        if len(spans) > _PASSAGES:
            more = self.say("{count} more shared passages.", count=f"{len(spans) - _PASSAGES:,}")
            w(f'<p class="muted">{more}</p>\n')

    def diff(self, ref: Document, doc: Document, left: str, right: str) -> None:
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
        self.w(f'<p class="muted">{" ".join([counts, *notes])}</p>\n')
        if s.identical:
            same = self.t("No differences line by line (the texts differ only in what the "
                          "comparison ignores).")
            self.w(f'<p class="muted">{same}</p>\n')
            return
        w = self.w
        w('<table class="diff"><colgroup><col class="no"><col><col class="no"><col>'
          f'</colgroup>\n<tr><th></th><th class="path">{_e(ref.name)}</th><th></th>'
          f'<th class="path">{_e(doc.name)}</th></tr>\n')
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

    def problems(self) -> None:
        probs = self.r.problems
        t = self.t
        self.w(f'<h2 id="problems">{t("Problems")} ({len(probs):,})</h2>\n')
        if not probs:
            self.w(f'<p class="muted">{t("Every file could be read.")}</p>\n')
            return
        self.w(f'<table class="problems"><tr><th>{t("File")}</th><th>{t("Kind")}</th>'
               f'<th>{t("Message")}</th></tr>\n')
        for p in probs:
            self.w(f'<tr><td class="path">{_e(p.path)}</td><td>{self.t(str(p.kind))}</td>'
                   f"<td>{_e(render_message(p.message, self.language))}</td></tr>\n")

    def t(self, text: str) -> str:
        """A heading or fixed sentence of the page in the report's language, escaped."""
        return html.escape(word(text, self.language), quote=True)

    def say(self, template: str, **args: object) -> str:
        """A sentence of the page in the report's language with its arguments, which the
        caller gives as HTML (escaped: names through :func:`_e`). The templates, English and
        Chinese, hold no character HTML would read as markup (``<``, ``&``)."""
        return phrase(template, self.language, **args)

    def unreadable(self, name: str) -> None:
        said = self.say("The text of {name} could not be read again (changed, moved or "
                        "unreadable since the scan).", name=_e(name))
        self.w(f'<p class="muted">{said}</p>\n')
        self.w("</table>\n")


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


def _shown(rows: tuple[_diff.DiffRow, ...], context: int) -> list[bool]:
    show = [False] * len(rows)
    for k, row in enumerate(rows):
        if row.kind != "equal":
            for j in range(max(0, k - context), min(len(rows), k + context + 1)):
                show[j] = True
    return show


def _marked(text: str | None, spans: tuple[_diff.Span, ...]) -> str:
    if text is None:
        return ""
    out = []
    pos = 0
    for s in spans:
        out.append(_t(text[pos:s.start]))
        out.append(f'<span class="c">{_t(text[s.start:s.end])}</span>')
        pos = s.end
    out.append(_t(text[pos:]))
    return "".join(out)
