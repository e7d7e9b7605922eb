"""The benchmark corpus: made-up documents and their near-duplicates, on disk, with ground truth.

``build(root, size, seed)`` writes about ``size`` files under ``root/docs``: base documents in
English, simplified and traditional Chinese (long reports and short notes), and variants made
by the edits people really make (typos, punctuation width, a header or footer, re-wrapped
lines, deleted / inserted / swapped sentences, a combination, a moderate edit, and heavy
rewrites that must *not* match). Files are written in mixed encodings (UTF-8 with and without
BOM, UTF-16, GBK, GB18030, Big5, cp1252) and as .docx, some with CRLF line ends. The truth is
the exact Jaccard of normalised shingles over *all* pairs (see :mod:`benchmarks.truth`), stored
next to a manifest that says how each file was made.

``from_folder(dir, work)`` does the same for any folder (no edit labels): its texts are read with
neardup's reader and the truth is computed from them.

A built corpus is reused when its manifest matches the requested size, seed and version.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import random
import time
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from . import textmaker as T
from .truth import MUST, ShingleHasher, Truth

#: Bump when generation changes, so cached corpora are rebuilt.
CORPUS_VERSION = 4

LANGS = (("en", 0.45), ("zh", 0.40), ("zht", 0.15))
ENCODINGS = {
    "en": (("utf-8", 0.43), ("utf-8-sig", 0.10), ("cp1252", 0.15), ("utf-16", 0.07),
           ("docx", 0.25)),
    "zh": (("utf-8", 0.30), ("gb18030", 0.12), ("gbk", 0.15), ("utf-8-sig", 0.06),
           ("utf-16", 0.07), ("docx", 0.30)),
    "zht": (("big5", 0.45), ("utf-8", 0.25), ("utf-16", 0.05), ("docx", 0.25)),
}
STEMS = {"en": ("report", "minutes", "policy", "memo", "letter", "notes", "contract", "summary",
                "draft", "proposal"),
         "zh": ("报告", "纪要", "通知", "方案", "合同", "总结", "函", "草稿"),
         "zht": ("報告", "紀錄", "通知", "方案", "合約", "總結")}
#: edit name -> weight, for long documents and for short notes
LONG_EDITS = (("copy", 6), ("typos", 12), ("punctuation", 8), ("header", 10), ("rewrap", 8),
              ("delete", 10), ("insert", 10), ("swap", 8), ("combo", 10), ("moderate", 8),
              ("rewrite", 10))
SHORT_EDITS = (("copy", 20), ("typos", 30), ("punctuation", 15), ("header", 5), ("rewrite", 30))
EDITS = tuple(sorted({e for e, _ in LONG_EDITS + SHORT_EDITS}))


@dataclass(frozen=True)
class FileSpec:
    path: str        # relative to the corpus's docs folder, "/"-separated
    family: int      # files made from one base document share a family
    parent: int      # index of the file this one was edited from; -1 for a base document
    edit: str        # "base" or one of EDITS
    lang: str        # "en", "zh", "zht"
    length: str      # "long" or "short"
    encoding: str    # codec written, or "docx"
    crlf: bool
    bytes: int


@dataclass
class Corpus:
    root: Path
    files: list[FileSpec]
    truth: Truth
    info: dict

    @property
    def docs(self) -> Path:
        src = self.info.get("source", "generated")
        return self.root / "docs" if src == "generated" else Path(src)

    @property
    def paths(self) -> list[str]:
        return [str(self.docs / f.path) for f in self.files]

    def index(self) -> dict[str, int]:
        """Absolute path -> file index, for mapping a tool's output back to the truth."""
        return {os.path.normpath(p): i for i, p in enumerate(self.paths)}

    @property
    def total_bytes(self) -> int:
        return sum(f.bytes for f in self.files)


# -- building ------------------------------------------------------------------------------------
def _pick(rng: random.Random, table: tuple[tuple[str, float], ...]) -> str:
    return rng.choices([k for k, _ in table], weights=[w for _, w in table])[0]


def _variant(src: T.Doc, src_text: str, edit: str, rng: random.Random,
             long: bool) -> tuple[T.Doc, str]:
    """Apply one named edit; returns the edited structure and its text."""
    m = T.MAKERS[src.lang]
    lang = src.lang
    if edit == "copy":
        return src, src_text
    if edit == "typos":
        rate = rng.uniform(0.005, 0.03) if long else 0.0
        return src, T.typos(src_text, lang, rng, rate)
    if edit == "punctuation":
        return src, T.punctuation_width(src_text, lang)
    if edit == "header":
        r = rng.random()
        return src, T.with_header(src_text, m.header(rng) if r < 0.7 else None,
                                  m.footer(rng) if r > 0.4 else None)
    if edit == "rewrap":
        return src, T.rewrap(src_text, lang, rng.randint(30, 90) if lang != "en" else
                             rng.randint(50, 90))
    if edit == "delete":
        d = T.delete_sentences(src, rng, rng.uniform(0.05, 0.15))
        return d, d.render()
    if edit == "insert":
        d = T.insert_sentences(src, rng, rng.uniform(0.05, 0.15))
        return d, d.render()
    if edit == "swap":
        d = T.swap_sentences(src, rng, rng.randint(2, 5))
        return d, d.render()
    if edit == "combo":
        d = T.delete_sentences(src, rng, 0.05)
        text = T.typos(d.render(), lang, rng, 0.01)
        text = T.rewrap(T.with_header(text, m.header(rng), None), lang, rng.randint(50, 90))
        return d, text
    if edit == "moderate":
        d = T.insert_sentences(T.delete_sentences(src, rng, rng.uniform(0.2, 0.3)), rng,
                               rng.uniform(0.1, 0.2))
        return d, d.render()
    if edit == "rewrite":
        d = T.rewrite_sentences(src, rng, rng.uniform(0.65, 0.9) if long else 1.0)
        return d, T.typos(d.render(), lang, rng, 0.01) if long else d.render()
    raise ValueError(f"unknown edit {edit!r}")


def _encode(text: str, encoding: str, crlf: bool) -> tuple[bytes, str]:
    if crlf:
        text = text.replace("\n", "\r\n")
    try:
        return text.encode(encoding), encoding
    except UnicodeEncodeError:
        return text.encode("utf-8"), "utf-8"


_CT = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
       '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
       '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
       'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
       '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
       'officedocument.wordprocessingml.document.main+xml"/>'
       '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-'
       'package.core-properties+xml"/></Types>')
_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
         '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
         'relationships/officeDocument" Target="word/document.xml"/>'
         '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/'
         'relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>')
_DOC_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
             'relationships"/>')
_CORE = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
         '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/'
         'core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{}</dc:title>'
         '<dc:creator>neardup benchmark</dc:creator></cp:coreProperties>')
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def docx_bytes(text: str, rng: random.Random, title: str = "") -> bytes:
    """A minimal, valid .docx: one paragraph per line, each split into a few runs as Word does.

    Written directly (python-docx takes ~30 ms a file, this ~1 ms); the test suite opens the
    result with python-docx to keep it honest.
    """
    paras = []
    for line in text.split("\n"):
        if not line:
            paras.append("<w:p/>")
            continue
        cuts = sorted(rng.sample(range(1, len(line)), min(len(line) - 1, rng.randint(0, 2))))
        runs = [line[i:j] for i, j in zip([0, *cuts], [*cuts, len(line)], strict=True)]
        body = "".join(f'<w:r><w:t xml:space="preserve">{escape(r)}</w:t></w:r>' for r in runs)
        paras.append(f"<w:p>{body}</w:p>")
    xml = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="{_W}">'
           f'<w:body>{"".join(paras)}<w:sectPr/></w:body></w:document>')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _CT)
        z.writestr("_rels/.rels", _RELS)
        z.writestr("docProps/core.xml", _CORE.format(escape(title)))
        z.writestr("word/_rels/document.xml.rels", _DOC_RELS)
        z.writestr("word/document.xml", xml)
    return buf.getvalue()


def generate(size: int, seed: int) -> tuple[list[str], list[dict]]:
    """Texts and how each was made (no paths or encodings yet); about ``size`` documents."""
    rng = random.Random(seed)
    preambles = {lang: [T.make_doc(lang, rng, rng.randint(3, 6)).sentences() for _ in range(12)]
                 for lang, _ in LANGS}
    texts: list[str] = []
    meta: list[dict] = []
    family = 0
    while len(texts) < size:
        lang = _pick(rng, LANGS)
        long = rng.random() < 0.75
        if long:
            n = int(min(250, max(6, rng.lognormvariate(math.log(30), 0.6))))
        else:
            n = rng.randint(1, 3)
        pre = rng.choice(preambles[lang]) if long and rng.random() < 0.08 else None
        base = T.make_doc(lang, rng, n, per_paragraph=(2, 6) if long else (1, 3), preamble=pre)
        members = [(base, base.render(), len(texts))]
        texts.append(members[0][1])
        meta.append({"family": family, "parent": -1, "edit": "base", "lang": lang,
                     "length": "long" if long else "short"})
        nvar = 0 if rng.random() < 0.5 else min(8, 1 + int(rng.expovariate(1 / 1.5)))
        if rng.random() < 0.004:
            nvar = rng.randint(15, 30)  # a circular sent to many people, each edited a little
        for _ in range(nvar):
            if len(texts) >= size:
                break
            src_doc, src_text, src_idx = members[0] if rng.random() < 0.8 else \
                rng.choice(members)
            edit = _pick(rng, LONG_EDITS if long else SHORT_EDITS)
            doc, text = _variant(src_doc, src_text, edit, rng, long)
            members.append((doc, text, len(texts)))
            texts.append(text)
            meta.append({"family": family, "parent": src_idx, "edit": edit, "lang": lang,
                         "length": "long" if long else "short"})
        family += 1
    # shuffle file order so families are not contiguous on disk or in walk order
    order = list(range(len(texts)))
    rng.shuffle(order)
    pos = {old: new for new, old in enumerate(order)}
    texts = [texts[i] for i in order]
    meta = [dict(meta[i], parent=pos.get(meta[i]["parent"], -1)) for i in order]
    return texts, meta


def build(root: str | Path, size: int = 20_000, seed: int = 7, *, force: bool = False,
          log: Callable[[str], None] = print) -> Corpus:
    """Write (or reuse) a corpus of about ``size`` files under ``root``."""
    root = Path(root)
    want = {"version": CORPUS_VERSION, "size": size, "seed": seed}
    man = root / "manifest.json"
    if not force and man.exists():
        try:
            c = load(root)
            if {k: c.info.get(k) for k in want} == want:
                return c
        except (OSError, ValueError, KeyError):
            pass
    t0 = time.monotonic()
    docs = root / "docs"
    if docs.exists():
        import shutil

        shutil.rmtree(docs)
    texts, meta = generate(size, seed)
    log(f"generated {len(texts)} texts in {time.monotonic() - t0:.1f} s")
    rng = random.Random(seed + 1)
    nfolders = max(1, len(texts) // 250)
    files: list[FileSpec] = []
    for i, (text, m) in enumerate(zip(texts, meta, strict=True)):
        lang = m["lang"]
        enc = _pick(rng, ENCODINGS[lang])
        crlf = enc != "docx" and rng.random() < 0.15
        folder = f"{lang}-{rng.randrange(nfolders):03d}"
        name = f"{rng.choice(STEMS[lang])}_{i:06d}"
        if enc == "docx":
            data = docx_bytes(text, rng, title=name)
            rel = f"{folder}/{name}.docx"
        else:
            data, enc = _encode(text, enc, crlf)
            rel = f"{folder}/{name}.txt"
        p = docs / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        files.append(FileSpec(rel, m["family"], m["parent"], m["edit"], lang, m["length"], enc,
                              crlf, len(data)))
    log(f"wrote {len(files)} files ({sum(f.bytes for f in files) / 1e6:.1f} MB) "
        f"in {time.monotonic() - t0:.1f} s")
    truth = truth_of(texts)
    log(f"truth: {truth.a.size} pairs >= {MUST} in {time.monotonic() - t0:.1f} s")
    info = dict(want, files=len(files), bytes=sum(f.bytes for f in files),
                text_bytes=sum(len(t.encode()) for t in texts),
                build_seconds=round(time.monotonic() - t0, 1), source="generated")
    _save(root, files, truth, info)
    return Corpus(root, files, truth, info)


def truth_of(texts: list[str]) -> Truth:
    h = ShingleHasher(3)
    return Truth.from_sets([h(t) for t in texts], MUST)


def _save(root: Path, files: list[FileSpec], truth: Truth, info: dict) -> None:
    root.mkdir(parents=True, exist_ok=True)
    truth.save(root / "truth.npz")
    tmp = root / "manifest.json.tmp"
    tmp.write_text(json.dumps({"info": info, "files": [asdict(f) for f in files]},
                              ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, root / "manifest.json")


def load(root: str | Path) -> Corpus:
    root = Path(root)
    d = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    files = [FileSpec(**f) for f in d["files"]]
    truth = Truth.load(root / "truth.npz")
    return Corpus(root, files, truth, d["info"])


# -- any folder ----------------------------------------------------------------------------------
def read_text(path: str) -> str | None:
    """Text of one file as neardup reads it (its reader, when present); None if unreadable."""
    try:
        from neardup_core.extract import extract
    except ImportError:  # the core's reader is not there yet: a plain fallback
        return _fallback_read(path)
    from neardup_core.models import Problem, ScanOptions

    got = extract(path, max_bytes=ScanOptions().max_size)
    return None if isinstance(got, Problem) else got.text


def _fallback_read(path: str) -> str | None:
    if path.lower().endswith(".docx"):
        import docx

        try:
            return "\n".join(p.text for p in docx.Document(path).paragraphs)
        except Exception:
            return None
    data = Path(path).read_bytes()
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"),
                       (b"\xfe\xff", "utf-16")):
        if data.startswith(bom):
            return data.decode(codec, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        import chardet

        enc = chardet.detect(data[:65536]).get("encoding") or "gb18030"
        return data.decode(enc, errors="replace")


def from_folder(folder: str | Path, work: str | Path,
                suffixes: tuple[str, ...] = (".txt", ".docx"),
                log: Callable[[str], None] = print) -> Corpus:
    """A corpus over an existing folder; truth from the texts neardup's reader gives."""
    folder = Path(folder).resolve()
    paths = sorted(str(p) for p in folder.rglob("*")
                   if p.is_file() and p.suffix.lower() in suffixes
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    stamp = hashlib.sha256(json.dumps(
        [CORPUS_VERSION] + [(p, os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in paths]
    ).encode()).hexdigest()[:16]
    root = Path(work) / f"folder-{stamp}"
    if (root / "manifest.json").exists():
        c = load(root)
        if c.info.get("stamp") == stamp:
            return c
    t0 = time.monotonic()
    texts, files = [], []
    for p in paths:
        text = read_text(p)
        if text is None:
            continue  # unreadable: every tool will report it as a problem, not a document
        texts.append(text)
        rel = os.path.relpath(p, folder)
        files.append(FileSpec(rel, -1, -1, "unknown", "?", "?", "?", False, os.stat(p).st_size))
    truth = truth_of(texts)
    info = {"version": CORPUS_VERSION, "stamp": stamp, "source": str(folder),
            "files": len(files), "bytes": sum(f.bytes for f in files),
            "text_bytes": sum(len(t.encode()) for t in texts),
            "build_seconds": round(time.monotonic() - t0, 1)}
    log(f"truth for {folder}: {len(files)} files, {truth.a.size} pairs >= {MUST}")
    _save(root, files, truth, info)
    return Corpus(root, files, truth, info)
