"""chardet's verdict on legacy text, several times faster and the same to the last bit.

On single-byte text (Latin, Cyrillic, Greek...) chardet 7 spends most of its milliseconds in
three compiled loops: a bigram profile of the sample, an upper bound for each of its ~290
single-byte language models, and a dot product for every model the bound does not rule out,
each carrying a few microseconds of interpreter overhead. Until the last division the numbers
are integers: the profile holds each bigram's count times its IDF weight, and a model's score
is the dot product of its weights with the profile divided by the two norms. Here numpy computes
every model's dot product at once from the models' weights laid out by bigram; the integers stay
far below 2**53, so float64 sums them exactly, and the final divisions are the same float
operations: the same scores, bit for bit.

Everything else is chardet's own code, called in the order its pipeline calls it: the checks that
come before scoring, the validity decoders, the CJK gate, the rank corrections. The list of
scored candidates is rebuilt exactly as chardet's pruning builds it, because the corrections
look at that list. Input that leaves the common path (a BOM, a charset declaration, UTF-8,
binary data...) is answered by chardet itself, and so is everything when the installed chardet
is not a version this was checked against (:data:`SUPPORTED_VERSIONS`, which ``pyproject.toml``
pins; ``tests/core/test_chardet_fast.py`` fails on any other).
"""

from __future__ import annotations

import codecs
import functools
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import chardet
import numpy as np

from neardup_core.tables import cached_arrays

__all__ = ["SUPPORTED_VERSIONS", "detect", "fast_path_available"]

#: The chardet releases whose internals this was checked to mirror (pinned in pyproject.toml).
#: Any other: chardet.detect, unchanged.
SUPPORTED_VERSIONS: tuple[str, ...] = ("7.7.0",)


def detect(sample: bytes) -> tuple[str | None, float]:
    """``chardet.detect(sample, compat_names=False, max_bytes=len(sample))``'s encoding and
    confidence."""
    engine = _engine()
    if engine is not None:
        got = engine.detect(sample)
        if got is not None:
            return got
    return _chardet(sample)


def fast_path_available() -> bool:
    """Whether the installed chardet is a checked one (otherwise :func:`detect` is chardet)."""
    return _engine() is not None


def _chardet(sample: bytes) -> tuple[str | None, float]:
    found = chardet.detect(sample, compat_names=False, max_bytes=max(1, len(sample)))
    return found.get("encoding"), float(found.get("confidence") or 0.0)


_LOCK = threading.Lock()
_BUILT: list[_Engine | None] = []


def _engine() -> _Engine | None:
    if not _BUILT:
        with _LOCK:
            if not _BUILT:
                _BUILT.append(_Engine.build())
    return _BUILT[0]


@dataclass(eq=False, kw_only=True)
class _Engine:
    """chardet's internals and the tables built from its models, for one process.

    Every name the pipeline below reads is a declared field, filled by :func:`_load_internals`
    (chardet's functions and constants) and :func:`_bytewise_tables` and :func:`_model_tables`
    (the tables): a name chardet no longer has fails the build, and the engine is then None.
    """

    # chardet's early stages, each answering for input that leaves the common path
    detect_bom: Callable[..., Any]
    detect_utf1632_patterns: Callable[..., Any]
    detect_escape_encoding: Callable[..., Any]
    detect_magic: Callable[..., Any]
    scan_utf8: Callable[..., Any]
    detect_ascii: Callable[..., Any]
    is_binary: Callable[..., Any]
    detect_markup_charset: Callable[..., Any]
    # validity, the CJK gate, the rank corrections and their constants
    decodes_without_error: Callable[..., Any]
    evidence_cap: int
    gate_cjk: Callable[..., Any]
    structural_threshold: float
    stat_max_bytes: int
    prescreen_from: int
    postprocess_results: Callable[..., Any]
    scoring_floor: Callable[..., Any]
    forced_encodings: Callable[..., Any]
    DetectionResult: Any
    PipelineContext: Any
    candidates: tuple[Any, ...]
    multibyte: tuple[Any, ...]
    no_match: tuple[str, float]
    # _bytewise_tables: the code pages judged from the bytes present, and their undefined bytes
    bytewise: list[str]
    undefined: np.ndarray
    # _model_tables: the bigram models by bigram, filled on demand, and what scoring reads
    table: np.ndarray
    loaded: np.ndarray
    lock: Any
    models: list[bytes]
    norms: np.ndarray
    idf: np.ndarray
    rowmax: np.ndarray
    variants: dict[str, tuple[tuple[str, int], ...]]
    whitespace_runs: np.ndarray
    grid: np.ndarray
    grid_row: dict[str, int]
    columns_of: dict[str, list[int]]
    langs: dict[str, list[str]]

    @classmethod
    def build(cls) -> _Engine | None:
        if getattr(chardet, "__version__", None) not in SUPPORTED_VERSIONS:
            return None
        try:
            return cls(**_load_internals())
        except (ImportError, AttributeError, KeyError, ValueError, LookupError):
            return None

    # -- the pipeline ----------------------------------------------------------------------

    def detect(self, data: bytes) -> tuple[str | None, float] | None:
        """The answer for ``data``, or None when chardet itself must give it."""
        if len(data) < 2 or len(data) > self.evidence_cap:
            return None
        # The early stages: any of them answering (or the data being binary) is chardet's case.
        if (self.detect_bom(data, input_truncated=False) is not None
                or self.detect_utf1632_patterns(data) is not None
                or self.detect_escape_encoding(data) is not None
                or self.detect_magic(data) is not None
                or self.scan_utf8(data)[1] is not None
                or self.detect_ascii(data) is not None
                or self.is_binary(data, max_bytes=len(data))
                or self.detect_markup_charset(data) is not None):
            return None
        ctx = self.PipelineContext()
        valid = self._valid(data, ctx)
        if not valid:
            return self.no_match
        structural = sorted(((e.name, ctx.mb_scores[e.name]) for e in valid
                             if e.is_multibyte_cjk and ctx.mb_scores[e.name] > 0.0),
                            key=lambda pair: pair[1], reverse=True)
        if structural and structural[0][1] >= self.structural_threshold:
            results = self._structural(data, structural, valid, ctx)
            if results:
                return self._verdict(data, results)
        results = self._score(data[:self.stat_max_bytes], valid)
        if not results:
            return self.no_match
        return self._verdict(data, results)

    def _verdict(self, data: bytes, results: list[Any]) -> tuple[str | None, float]:
        top = self.postprocess_results(data, results, input_truncated=False)[0]
        return top.encoding, min(top.confidence, 1.0)

    def _valid(self, data: bytes, ctx: Any) -> tuple[Any, ...]:
        """The candidates that decode ``data`` and pass the CJK gate, as chardet's validity
        filter and gate leave them.

        Code pages that decode byte by byte are judged from the set of bytes present. The CJK
        gate judges each multi-byte candidate on its own (from the data alone), so it runs
        first, and only the few candidates it keeps are decoded; the rest are decoded with
        chardet's own check.
        """
        present = np.zeros(256, dtype=bool)
        present[np.frombuffer(data, dtype=np.uint8)] = True
        fails = dict(zip(self.bytewise, self.undefined[:, present].any(axis=1).tolist(),
                         strict=True))
        gated = {e.name for e in self.gate_cjk(data, self.multibyte, ctx)}
        out = []
        for enc in self.candidates:
            if enc.is_multibyte_cjk and enc.name not in gated:
                continue
            bad = fails.get(enc.name)
            if bad is None:
                bad = not self.decodes_without_error(data, enc.name)
            if not bad:
                out.append(enc)
        return tuple(out)

    def _structural(self, data: bytes, structural: list[tuple[str, float]],
                    valid: tuple[Any, ...], ctx: Any) -> list[Any]:
        """The ranking of the structural branch: multi-byte candidates in the order of their
        structural scores, then the single-byte ones, those with nearly every high byte in a
        valid pair boosted."""
        multibyte = {e.name: e for e in valid if e.is_multibyte_cjk}
        order = (*(multibyte[name] for name, _ in structural if name in multibyte),
                 *(e for e in valid if not e.is_multibyte_cjk))
        boosted = []
        for r in self._score(data[:self.stat_max_bytes], order):
            coverage = ctx.mb_coverage.get(r.encoding, 0.0) if r.encoding else 0.0
            if coverage >= 0.95:
                r = self.DetectionResult(r.encoding, r.confidence * (1 + coverage), r.language,
                                         r.mime_type)
            boosted.append(r)
        boosted.sort(key=lambda r: r.confidence, reverse=True)
        return boosted

    # -- statistical scoring ---------------------------------------------------------------

    def _score(self, data: bytes, candidates: tuple[Any, ...]) -> list[Any]:
        """chardet's statistical ranking of ``candidates`` (pruned as chardet prunes it)."""
        if len(data) < 2 or not candidates:
            return []
        codes = np.frombuffer(data, dtype=np.uint8)
        bigrams = np.sort((codes[:-1].astype(np.uint16) << 8) | codes[1:], kind="stable")
        starts = np.flatnonzero(np.concatenate(([True], bigrams[1:] != bigrams[:-1])))
        nonzero = bigrams[starts].astype(np.intp)
        counts = np.diff(np.append(starts, bigrams.size))
        # Runs of the same whitespace byte are not counted (training collapsed them).
        runs = np.searchsorted(nonzero, self.whitespace_runs).clip(max=nonzero.size - 1)
        runs = runs[nonzero[runs] == self.whitespace_runs]
        if runs.size:
            nonzero, counts = np.delete(nonzero, runs), np.delete(counts, runs)
            if not nonzero.size:
                return []
        weights = counts * self.idf[nonzero]   # exact int64
        input_norm = math.sqrt(int(np.dot(weights, weights)))
        leads = nonzero >> 8
        leads = leads[np.concatenate(([True], leads[1:] != leads[:-1]))]   # sorted, distinct
        if not self.loaded[leads].all():
            self._load(leads)
        # Integers below 2**53 all the way, so float64 sums them exactly in any order.
        dots = weights.astype(np.float64) @ self.table[nonzero]
        denominators = self.norms * input_norm
        scores = dots / denominators
        if nonzero.size < self.prescreen_from:
            scored = np.ones(scores.size + 1, dtype=bool)
            scored[-1] = False
        else:
            lead = np.bincount(nonzero >> 8, weights=weights, minlength=256)
            scored = self._pruned(candidates, scores, (self.rowmax @ lead) / denominators)
        return self._ranked(candidates, scores, scored)

    def _load(self, leads: np.ndarray) -> None:
        """Fill the model table's rows of the bigrams starting with bytes ``leads``, 256 rows
        (one lead byte) at a time: a process that reads only Western text never fills the rows
        of CJK bytes, and no sample waits for all 65,536 rows to be built."""
        with self.lock:
            for lead in leads[~self.loaded[leads]].tolist():
                lo, hi = lead << 8, (lead + 1) << 8
                block = b"".join(model[lo:hi] for model in self.models)   # model by model
                self.table[lo:hi] = np.frombuffer(block, dtype=np.uint8).reshape(-1, 256).T
                self.loaded[lead] = True

    def _pruned(self, candidates: tuple[Any, ...], scores: np.ndarray,
                bounds: np.ndarray) -> np.ndarray:
        """Which models chardet scores: a mask over the columns (and a last, False entry).

        chardet scores every multi-byte model, then single-byte ones by falling upper bound
        (a stable sort) until a bound drops under the floor of what a rank correction can look
        at (the floor rises with the two best encodings so far), then every model of the
        encodings a correction looks up by name. An encoding's best is then the highest score
        among its scored models, the language that of the first such model (see
        :meth:`_ranked`): the order of scoring does not matter, only where it stops.
        """
        floor = self.scoring_floor
        best: dict[str, float] = {}
        # chardet's running top two: the best score and the best of the other encodings.
        top1_enc = ""
        top1 = top2 = 0.0

        def offer(name: str, score: float) -> bool:
            """Record an encoding's score; True when the top two moved."""
            nonlocal top1_enc, top1, top2
            if score <= best.get(name, -1.0):
                return False
            best[name] = score
            if name == top1_enc:
                top1 = score
            elif score > top1:
                top2, top1, top1_enc = top1, score, name
            elif score > top2:
                top2 = score
            else:
                return False
            return True

        multibyte = [(enc.name, column) for enc in candidates if enc.is_multibyte_cjk
                     for _lang, column in self.variants.get(enc.name, ())]
        for name, column in multibyte:
            offer(name, float(scores[column]))
        columns, owner, names = self._single_byte_models(
            tuple(enc.name for enc in candidates if not enc.is_multibyte_cjk))
        order = np.argsort(-bounds[columns], kind="stable")
        columns = columns[order]
        below = floor(top1, top2)
        taken = 0
        for bound, score, i in zip(bounds[columns].tolist(), scores[columns].tolist(),
                                   owner[order].tolist(), strict=True):
            if bound < below:
                break
            taken += 1
            if offer(names[i], score):
                below = floor(top1, top2)
        scored = np.zeros(scores.size + 1, dtype=bool)
        scored[[column for _, column in multibyte]] = True
        scored[columns[:taken]] = True
        near = floor(top1, top2)
        for name in self.forced_encodings([name for name, s in best.items() if s >= near]):
            scored[self.columns_of.get(name, [])] = True
        return scored

    @functools.lru_cache(maxsize=256)  # noqa: B019 - one engine per process, never freed
    def _single_byte_models(self, names: tuple[str, ...]
                            ) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """The models of the single-byte encodings ``names`` in chardet's order before its
        sort (encoding by encoding, variant by variant): their columns, the index of their
        encoding in the list of those that have models, and that list."""
        with_models = [name for name in names if name in self.variants]
        entries = [(i, column) for i, name in enumerate(with_models)
                   for _lang, column in self.variants[name]]
        return (np.array([column for _, column in entries], dtype=np.intp),
                np.array([i for i, _ in entries], dtype=np.intp), with_models)

    def _ranked(self, candidates: tuple[Any, ...], scores: np.ndarray,
                scored: np.ndarray) -> list[Any]:
        """The encodings whose best scored model is above 0, by falling best, ties in
        candidate order; each with the language of its first model reaching that best."""
        names = [enc.name for enc in candidates if enc.name in self.grid_row]
        if not names:
            return []
        values = np.append(np.where(scored[:-1], scores, -1.0), -1.0)
        values = values[self.grid[[self.grid_row[name] for name in names]]]
        top = values.max(axis=1)
        first = values.argmax(axis=1)        # the first (lowest variant) reaching the best
        keep = np.flatnonzero(top > 0.0)
        keep = keep[np.argsort(-top[keep], kind="stable")]
        result, langs = self.DetectionResult, self.langs
        return [result(names[i], score, langs[names[i]][v])
                for i, score, v in zip(keep.tolist(), top[keep].tolist(),
                                       first[keep].tolist(), strict=True)]


def _load_internals() -> dict[str, Any]:
    """The chardet functions and constants the pipeline above calls, and the model tables."""
    from chardet import _utils
    from chardet import models as chardet_models
    from chardet.enums import EncodingEra
    from chardet.pipeline import (
        DetectionResult,
        PipelineContext,
        orchestrator,
        postprocess,
        statistical,
    )
    from chardet.pipeline.ascii import detect_ascii
    from chardet.pipeline.binary import is_binary
    from chardet.pipeline.bom import detect_bom
    from chardet.pipeline.escape import detect_escape_encoding
    from chardet.pipeline.magic import detect_magic
    from chardet.pipeline.markup import detect_markup_charset
    from chardet.pipeline.utf8 import scan_utf8
    from chardet.pipeline.utf1632 import detect_utf1632_patterns
    from chardet.registry import get_candidates

    candidates = get_candidates(EncodingEra.ALL, None, None)
    internals: dict[str, Any] = {
        "detect_bom": detect_bom, "detect_utf1632_patterns": detect_utf1632_patterns,
        "detect_escape_encoding": detect_escape_encoding, "detect_magic": detect_magic,
        "scan_utf8": scan_utf8, "detect_ascii": detect_ascii, "is_binary": is_binary,
        "detect_markup_charset": detect_markup_charset,
        "decodes_without_error": _utils.decodes_without_error,
        "evidence_cap": int(_utils.EVIDENCE_CAP_BYTES),
        "gate_cjk": orchestrator._gate_cjk_candidates,
        "structural_threshold": float(orchestrator._STRUCTURAL_CONFIDENCE_THRESHOLD),
        "stat_max_bytes": int(orchestrator._STAT_SCORE_MAX_BYTES),
        "prescreen_from": int(statistical._MIN_NONZERO_FOR_PRESCREEN),
        "postprocess_results": postprocess.postprocess_results,
        "scoring_floor": postprocess.scoring_floor,
        "forced_encodings": postprocess.forced_encodings,
        "DetectionResult": DetectionResult, "PipelineContext": PipelineContext,
        "candidates": candidates,
        "multibyte": tuple(e for e in candidates if e.is_multibyte_cjk),
        # What chardet answers when no candidate survives (its default no_match_encoding).
        "no_match": ("cp1252", 0.10),
    }
    internals.update(_bytewise_tables(candidates))
    internals.update(_model_tables(chardet_models))
    return internals


#: The codec functions that decode each byte on its own, whatever comes before or after it.
_BYTEWISE_DECODERS = frozenset({"charmap_decode", "latin_1_decode", "ascii_decode"})


def _bytewise_tables(candidates: tuple[Any, ...]) -> dict[str, Any]:
    """For the single-byte code pages among ``candidates`` (ASCII, Latin-1 and the charmap
    codecs, which decode each byte on its own): which bytes each one cannot decode. Data
    decodes without error exactly when it holds none of them.

    Kept in the cache folder (:mod:`neardup_core.tables`; Python's version, hence its
    codecs, is part of the key): building it decodes every byte in a hundred code pages, a
    twentieth of a second that every scan's fork server and every CLI run would otherwise
    spend before its first Western file.
    """
    names = [enc.name for enc in candidates]
    inputs = "|".join([str(getattr(chardet, "__version__", "")), *names])

    def check(a: dict[str, np.ndarray]) -> bool:
        found, undefined = a.get("names"), a.get("undefined")
        return (found is not None and undefined is not None and found.dtype.kind == "U"
                and found.ndim == 1 and undefined.dtype == np.bool_
                and undefined.shape == (found.size, 256) and set(found.tolist()) <= set(names))

    def build() -> dict[str, np.ndarray]:
        built = _build_bytewise_tables(candidates)
        return {"names": np.array(built["bytewise"], dtype=np.str_),
                "undefined": built["undefined"]}

    got = cached_arrays("chardet-bytewise", [__file__], inputs, build, check)
    return {"bytewise": got["names"].tolist(), "undefined": got["undefined"]}


def _build_bytewise_tables(candidates: tuple[Any, ...]) -> dict[str, Any]:
    names: list[str] = []
    rows: list[list[bool]] = []
    every_byte = bytes(range(256))
    for enc in candidates:
        decoder = codecs.getincrementaldecoder(enc.name)
        code = getattr(decoder.decode, "__code__", None)
        if code is None or not _BYTEWISE_DECODERS & set(code.co_names):
            continue
        try:   # an undefined byte >= 0x80 becomes the lone surrogate U+DC80 + (byte - 0x80)
            text = decoder(errors="surrogateescape").decode(every_byte, final=True)
            row = [0xDC80 <= ord(c) <= 0xDCFF for c in text] if len(text) == 256 else None
        except UnicodeError:   # an undefined byte under 0x80
            row = None
        if row is None:
            row = [not _decodes(decoder, bytes([b])) for b in range(256)]
        names.append(enc.name)
        rows.append(row)
    return {"bytewise": names, "undefined": np.array(rows, dtype=bool).reshape(len(names), 256)}


def _decodes(decoder: Any, data: bytes) -> bool:
    try:
        decoder().decode(data, final=False)
    except UnicodeError:
        return False
    return True


def _model_tables(chardet_models: Any) -> dict[str, Any]:
    """chardet's bigram models as one matrix (a row per bigram, a column per model, filled on
    demand by :meth:`_Engine._load`), with their norms, row maxima and each encoding's
    (language, column) variants in chardet's order."""
    models: dict[str, bytes] = chardet_models.load_models()
    norms_by_key: dict[str, float] = chardet_models._get_model_norms()
    rowmax_by_key: dict[str, bytes] = chardet_models.get_rowmax()
    keys = list(models)
    column = {key: i for i, key in enumerate(keys)}
    norms = np.array([norms_by_key[key] for key in keys], dtype=np.float64)
    if not (norms > 0.0).all():
        raise ValueError("a model without a positive norm")
    idf = np.frombuffer(chardet_models.get_idf_weights(), dtype=np.uint8)
    if idf.size != 65536 or idf.min() == 0:
        raise ValueError("unexpected IDF table")
    # The models' weights by bigram: a row per bigram, a column per model, filled a lead byte
    # at a time when first needed (np.empty takes no memory until rows are written).
    table = np.empty((65536, len(keys)), dtype=np.uint8)
    rowmax = np.stack([np.frombuffer(rowmax_by_key[key], dtype=np.uint8) for key in keys])
    variants = {enc: tuple((lang, column[key]) for lang, _table, key in entries)
                for enc, entries in chardet_models.get_enc_index().items()}
    # A row of model columns per encoding, padded with one past the last column.
    grid = np.full((len(variants), max(map(len, variants.values()))), len(keys), dtype=np.intp)
    for row, entries in enumerate(variants.values()):
        grid[row, :len(entries)] = [c for _, c in entries]
    # The bigrams of a whitespace byte repeated, which chardet's profile leaves out.
    whitespace = np.flatnonzero(
        np.frombuffer(chardet_models._ASCII_WHITESPACE_TABLE, dtype=np.uint8))
    return {"table": table, "loaded": np.zeros(256, dtype=bool), "lock": threading.Lock(),
            "models": [models[key] for key in keys], "norms": norms, "idf": idf.astype(np.int64),
            "rowmax": rowmax.astype(np.float64), "variants": variants,
            "whitespace_runs": (whitespace << 8) | whitespace,
            "grid": grid, "grid_row": {enc: row for row, enc in enumerate(variants)},
            "columns_of": {enc: [c for _, c in entries] for enc, entries in variants.items()},
            "langs": {enc: [lang for lang, _ in entries] for enc, entries in variants.items()}}
