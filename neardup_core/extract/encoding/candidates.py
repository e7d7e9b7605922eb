"""Candidate readings of a sample: decoded strictly and ranked by plausibility, scoring as few
of them exactly as the outcome allows.

Step 9 of the detector (see :mod:`.detect`) decodes a set of candidate codecs and keeps the
one whose reading scores best; exact scores are the costly part, so candidates are bounded
first (:func:`~.plausibility.quick_plausibility`, or 1.0 for a reading not yet decoded) and
only those that could be the winner or a close runner-up are scored. The strict decoding used
everywhere in the detector, and the safe place to cut a sample, live here as well.
"""

from __future__ import annotations

import codecs

import numpy as np

from neardup_core.extract.encoding.plausibility import QUICK_ERROR, plausibility, quick_plausibility

__all__ = ["NOT_STRICT", "SCORE_SAMPLE", "safe_cut", "score_candidates", "score_head",
           "strict_decode", "top_candidate"]

#: What failing to decode strictly costs a candidate's score: a decoding with a few U+FFFD beats
#: a strict one only when the strict one reads like mojibake.
NOT_STRICT = 0.2
#: Characters of a candidate decoding that are scored (enough for a stable share, and fast).
SCORE_SAMPLE = 16 * 1024


def strict_decode(data: bytes, codec: str) -> tuple[str, int] | None:
    """Strict decoding that forgives only an incomplete last character (counted as replaced).

    Returns None when the codec does not fit the data.
    """
    decoder = codecs.getincrementaldecoder(codec)(errors="strict")
    try:
        text = decoder.decode(data, final=False)
        pending = decoder.getstate()[0]
        if pending:
            try:
                return text + decoder.decode(b"", final=True), 0
            except UnicodeDecodeError:
                return text + "\ufffd", 1
        return text, 0
    except (UnicodeDecodeError, UnicodeError):
        return None


def safe_cut(sample: bytes, total: int) -> bytes:
    """Cut a sample after a byte below 0x40: never a trail byte of GBK, Big5, Shift_JIS..."""
    if len(sample) >= total:
        return sample
    for i in range(len(sample) - 1, max(-1, len(sample) - 1024), -1):
        if sample[i] < 0x40:
            return sample[: i + 1]
    return sample


def score_head(sample: bytes) -> bytes:
    """What candidates are scored on: enough bytes for SCORE_SAMPLE characters, cut safely."""
    head = sample[: SCORE_SAMPLE * 2]
    if len(head) < len(sample):
        head = safe_cut(head, len(sample))
    return head


def top_candidate(head: bytes, order: list[str],
                   trusted: tuple[str, ...]) -> tuple[float, int, str, bool]:
    """What :func:`score_candidates` ranks first (its best ``(score, -rank, codec, strict)``),
    scoring as few candidates as that takes.

    Usually the best candidate decodes the whole file and nothing else is needed. Candidates
    are taken by falling upper bound: plausibility is at most 1.0, so a candidate can reach at
    most 1.0 plus its adjustments (0.05 for chardet's pick, -NOT_STRICT when ``head`` needs
    replacements), and once the best exact score beats every remaining bound, no remaining
    candidate can rank first. A chardet pick that reads as clean text (plausibility above
    0.95) is therefore the only candidate decoded. Scores are computed as there, to the bit.
    """
    def adjusted(p: float, i: int, strict: bool) -> float:
        if order[i] in trusted:
            p += 0.05
        if not strict:
            p -= NOT_STRICT
        return p

    by_bound = sorted(range(len(order)), key=lambda i: -adjusted(1.0, i, True))
    best: tuple[float, int, str, bool] | None = None
    for i in by_bound:
        if best is not None and adjusted(1.0, i, True) < best[0]:
            break   # bounds only fall from here
        decoded = strict_decode(head, order[i])
        ok = decoded is not None
        if decoded is None:
            if best is not None and adjusted(1.0, i, False) < best[0]:
                continue
            text = head.decode(order[i], errors="replace")[:SCORE_SAMPLE]
        else:
            text = decoded[0][:SCORE_SAMPLE]
        quick, exact = quick_plausibility(text)
        if best is not None and adjusted(quick + QUICK_ERROR, i, ok) < best[0]:
            continue
        candidate = (adjusted(quick if exact else plausibility(text), i, ok), -i, order[i], ok)
        if best is None or candidate > best:
            best = candidate
    assert best is not None  # order is never empty
    return best


def score_candidates(head: bytes, order: list[str],
                      trusted: tuple[str, ...]) -> list[tuple[float, int, str, bool]]:
    """``(score, -rank, codec, strict)`` of the candidates that can decide the outcome.

    The score is :func:`plausibility` of the candidate's decoding of ``head``, plus 0.05 for
    chardet's pick, minus NOT_STRICT when ``head`` needs ``errors="replace"``. The caller
    takes the best and any strict runner-up within 0.1 of it, so a candidate that scores
    below the best minus 0.1 cannot change its answer. Rather than computing plausibility for
    every candidate (the costly part), each gets bounds first: :func:`quick_plausibility`
    (exact, or within QUICK_ERROR) for a strict decoding, and the score plausibility 1.0 would
    give for one that is not strict (decoded only if that bound is in reach). Only candidates
    whose upper bound reaches the best lower bound minus 0.1 get the exact score; the others
    are left out, and the outcome is the one scoring them all would give.
    """
    n = len(order)
    texts: list[str | None] = [None] * n
    known: list[float | None] = [None] * n   # plausibility, when the quick score is exact
    low = [-np.inf] * n
    high = [0.0] * n
    strict_ok = [False] * n

    def adjusted(p: float, i: int) -> float:
        # The same float operations as the exact score: monotone, so bounds stay bounds.
        if order[i] in trusted:
            p += 0.05
        if not strict_ok[i]:
            p -= NOT_STRICT
        return p

    def bound(i: int, text: str) -> None:
        texts[i] = text
        quick, exact = quick_plausibility(text)
        known[i] = quick if exact else None
        error = 0.0 if exact else QUICK_ERROR
        low[i] = adjusted(quick - error, i)
        high[i] = adjusted(quick + error, i)

    for i, codec in enumerate(order):
        strict = strict_decode(head, codec)
        strict_ok[i] = strict is not None
        if strict is not None:
            bound(i, strict[0][:SCORE_SAMPLE])
        else:
            high[i] = adjusted(1.0, i)   # plausibility never exceeds 1.0
    while True:
        floor = max(low) - 0.1
        todo = [i for i in range(n) if texts[i] is None and high[i] >= floor]
        if not todo:
            break
        for i in todo:
            bound(i, head.decode(order[i], errors="replace")[:SCORE_SAMPLE])
    scored: list[tuple[float, int, str, bool]] = []
    for i, text in enumerate(texts):
        if text is None or high[i] < floor:
            continue
        exact = known[i]
        score = adjusted(plausibility(text) if exact is None else exact, i)
        scored.append((score, -i, order[i], strict_ok[i]))
    return scored
