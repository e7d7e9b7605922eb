"""Properties across modules: the same text in any form is the same text; near copies are found.

The modules' own tests check each piece against a reference (tokens against unicodedata, the
index against brute force). These check what a user relies on from the pieces together:
extraction + normalisation make one text out of every encoding, container and line ending,
extraction never raises whatever the bytes, and the scan never misses a close pair.
"""

from __future__ import annotations

import io
import os
import random
import tempfile
from pathlib import Path

import docx
import numpy as np
from _hostile import docx_bytes
from _robust import assert_whole, scan
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from neardup_core.extract import BinaryContent, Extracted, decode_bytes, extract
from neardup_core.fingerprint.fingerprinter import fingerprint_text, normalized_jaccard
from neardup_core.models import Problem, ProblemKind
from neardup_core.text.normalise import normalize

FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=60)

ZH = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下"
WORDS = ["budget", "contract", "report", "review", "meeting", "Oslo", "plan", "risk", "data"]

#: Text as people write it: Chinese and English words, digits, punctuation, line breaks.
chunks = st.one_of(st.text(alphabet=ZH, min_size=1, max_size=12), st.sampled_from(WORDS),
                   st.integers(0, 10**6).map(str), st.sampled_from(["，", "。", ", ", ". ", " ",
                                                                   "\n", "\t", "（注）", "!"]))
texts = st.lists(chunks, min_size=1, max_size=60).map("".join)


def _docx_of(text: str) -> bytes:
    d = docx.Document()
    for line in text.split("\n"):
        d.add_paragraph(line)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


CONTAINERS = {
    "utf-8": lambda t: t.encode("utf-8"),
    "utf-8 bom": lambda t: t.encode("utf-8-sig"),
    "utf-16": lambda t: t.encode("utf-16"),
    "utf-16 crlf": lambda t: t.replace("\n", "\r\n").encode("utf-16"),
    "gb18030": lambda t: t.encode("gb18030"),
    "docx": _docx_of,
}


@FAST
@given(texts, st.sampled_from(sorted(CONTAINERS)))
def test_the_same_text_in_any_container_normalises_the_same(text: str, container: str) -> None:
    assume(normalize(text))
    if container == "gb18030":
        # A legacy encoding is only told apart from others by reading like text: a few
        # characters are ambiguous (GBK "一" is also the UTF-8 of "һ")
        data = text.encode("gb18030")
        assume(sum(c in ZH for c in text) >= 6)
        assume(data.isascii() or not _is_utf8(data))
    suffix = ".docx" if container == "docx" else ".txt"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "doc" + suffix)
        Path(path).write_bytes(CONTAINERS[container](text))
        got = extract(path, max_bytes=1 << 20)
    assert isinstance(got, Extracted), got
    assert normalize(got.text) == normalize(text)
    assert fingerprint_text(got.text).text_hash == fingerprint_text(text).text_hash


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


#: Changes that make a text look different but not read differently.
COSMETIC = [
    lambda t: t.upper(),
    lambda t: t.replace(" ", "\u3000"),                  # ideographic spaces
    lambda t: t.replace(" ", "  \t "),                   # runs of spacing
    lambda t: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in t),  # full width
    lambda t: t.replace("\n", "\r\n"),
    lambda t: "\ufeff" + t.replace("o", "o\u200b"),      # BOM and zero-width spaces
    lambda t: "\n\n  " + t + "  \n\n",
]


@FAST
@given(texts, st.sampled_from(range(len(COSMETIC))))
def test_cosmetic_changes_keep_the_text_the_same(text: str, k: int) -> None:
    variant = COSMETIC[k](text)
    assert fingerprint_text(variant).text_hash == fingerprint_text(text).text_hash


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), max_size=12),
       st.one_of(st.none(), st.integers(0, 1 << 20)))
def test_extract_never_raises_on_damaged_word_files(flips: list[tuple[int, int]],
                                                    cut: int | None) -> None:
    data = bytearray(SEED_DOCX)
    for pos, value in flips:
        data[pos % len(data)] = value
    if cut is not None:
        del data[cut % len(data):]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "damaged.docx")
        Path(path).write_bytes(bytes(data))
        got = extract(path, max_bytes=1 << 20)
    if isinstance(got, Problem):
        assert got.kind in {ProblemKind.CORRUPT, ProblemKind.EMPTY, ProblemKind.TOO_LARGE,
                            ProblemKind.UNSUPPORTED, ProblemKind.ENCRYPTED}
        assert "unexpected" not in got.message, got.message  # a reader bug, not a file problem
    else:
        assert isinstance(got.text, str)


SEED_DOCX = docx_bytes()


@settings(deadline=None, max_examples=300)
@given(st.one_of(st.binary(max_size=400), texts.flatmap(
    lambda t: st.sampled_from(["utf-8", "gb18030", "big5", "utf-16-le", "cp1252", "shift_jis",
                               "euc-kr"]).map(lambda c: t.encode(c, errors="ignore")))))
def test_the_reported_encoding_reads_the_same_text_again(data: bytes) -> None:
    """What the GUI's "re-read as" and the report's diffs rely on."""
    try:
        decoded = decode_bytes(data)
    except BinaryContent:
        return
    assert decode_bytes(data, encoding=decoded.encoding).text == decoded.text


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts.filter(lambda t: len(normalize(t)) >= 20), min_size=2, max_size=6),
       st.randoms(use_true_random=False))
def test_a_scan_never_misses_a_close_pair(bases: list[str], rnd: random.Random) -> None:
    """Files whose shingle sets are at least 90 % alike are always paired (or exact copies)."""
    files: list[str] = []
    for text in bases:
        files.append(text)
        roll = rnd.random()
        if roll < 0.4:
            files.append(text)                                   # an exact copy
        elif roll < 0.8:
            files.append(text + rnd.choice(["。", " end", "\n附", ""]))  # a near copy
    with tempfile.TemporaryDirectory() as tmp:
        for i, text in enumerate(files):
            Path(tmp, f"f{i:02d}.txt").write_text(text, encoding="utf-8")
        result = scan(tmp, boilerplate=None)
    assert_whole(result)
    idx = {os.path.basename(d.path): i for i, d in enumerate(result.documents)}
    group_of = {m.doc: g.id for g in result.groups for m in g.members}
    paired = set(zip(result.pairs.a.tolist(), result.pairs.b.tolist(), strict=True))
    first_copy: dict[str, int] = {}
    for i, d in enumerate(result.documents):
        first_copy.setdefault(d.text_hash, i)
    for i in range(len(files)):
        for j in range(i + 1, len(files)):
            if normalized_jaccard(files[i], files[j]) < 0.9:
                continue
            a, b = idx[f"f{i:02d}.txt"], idx[f"f{j:02d}.txt"]
            ra = first_copy[result.documents[a].text_hash]
            rb = first_copy[result.documents[b].text_hash]
            assert ra == rb or (min(ra, rb), max(ra, rb)) in paired, (files[i], files[j])
            assert group_of.get(a) is not None and group_of.get(a) == group_of.get(b)


@settings(deadline=None, max_examples=10, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts, min_size=1, max_size=8))
def test_a_warm_cache_gives_the_same_result(contents: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp, "docs")
        root.mkdir()
        for i, text in enumerate(contents):
            (root / f"f{i}.txt").write_text(text, encoding="utf-8")
        cache = os.path.join(tmp, "cache.sqlite")
        cold = scan(root, use_cache=True, cache_path=cache)
        warm = scan(root, use_cache=True, cache_path=cache)
    assert warm.stats["read"] == 0
    assert warm.documents == cold.documents and warm.problems == cold.problems
    assert np.array_equal(warm.simhash, cold.simhash)
    assert np.array_equal(warm.minhash, cold.minhash)
    assert [[m.doc for m in g.members] for g in warm.groups] == \
        [[m.doc for m in g.members] for g in cold.groups]
