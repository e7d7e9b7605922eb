"""How scores are put into words in reports: percentages that never round a difference away,
and what a group's weakest score means in each grouping mode."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from neardup_core.messages import phrase, word
from neardup_core.models import GroupMode

if TYPE_CHECKING:
    import numpy as np


def percent(share: float, digits: int = 1) -> str:
    """``share`` as a percentage with ``digits`` decimals, where only 1 itself is 100%.

    A score of 0.9996 printed "100.0%" would tell the user two texts that differ are the same.
    """
    text = f"{share:.{digits}%}"
    if share < 1.0 and float(text[:-1]) >= 100.0:
        text = f"{100 - 10.0 ** -digits:.{digits}f}%"
    return text


def weakest_label(mode: GroupMode | str, weakest: float, language: str = "en") -> str:
    """What a group's ``weakest`` means in words: in CONNECTED groups the weakest link of the
    chain; in STRICT and COHESIVE ones the lowest similarity of a member to the reference.
    In ``language`` ("en" or "zh_CN")."""
    # a lower bound ("N%+"), so rounded down: 80.6 % is "80%+", and 99.6 % never "100%+",
    # which would say the texts are the same (the slack keeps float32 0.58 at 58)
    if not math.isfinite(weakest):  # no score to bound (never from a scan): say so plainly
        return f"weakest {weakest}"
    p = min(100, math.floor(100.0 * float(weakest) + 1e-4))
    if GroupMode(mode) == GroupMode.CONNECTED:
        return phrase("weakest link {share}", language, share=f"{p}%")
    if p < 100:
        return phrase("all {share}+ like the reference", language, share=f"{p}%")
    return phrase("all 100% like the reference", language)


def group_labels(weakest: np.ndarray, exact: np.ndarray, mode: GroupMode | str,
                 language: str = "en", exact_label: str | None = None) -> list[str]:
    """Each group's label: ``exact_label`` (by default "exact copies" in ``language``) where
    ``exact``, else :func:`weakest_label` of its weakest score, worded once per whole percent
    (all the label depends on)."""
    same = word("exact copies", language) if exact_label is None else exact_label
    labels: dict[float, str] = {}
    out = []
    for x, alike in zip(weakest.tolist(), exact.tolist(), strict=True):
        if alike:
            out.append(same)
            continue
        key = math.floor(100.0 * x + 1e-4) if math.isfinite(x) else x
        got = labels.get(key)
        if got is None:
            got = labels[key] = weakest_label(mode, x, language)
        out.append(got)
    return out


def written_now() -> str:
    """The local time a report is written, as the HTML page says it (under its title)."""
    import time

    return time.strftime("%Y-%m-%d %H:%M:%S")
