"""Plain words for an empty or odd result (issue 21, item 5).

A scan that finds nothing must say why in words a user knows: no file neardup reads was
there (and which files were, by type), the files were there but none are alike enough at this
threshold (and how alike the closest two are), or folders could not be read (permission
denied). These lines go in the banner over the results.
"""

from __future__ import annotations

from PySide6.QtCore import QLocale, QObject

from neardup_core.models import ProblemKind
from neardup_core.result import ScanResult

#: At most this many file types are named; the rest are counted together.
TYPES_NAMED = 5


class Explainer(QObject):
    """Words the explanations (a QObject, so lupdate sees its ``tr`` calls, plurals too)."""

    def explain(self, result: ScanResult) -> list[str]:
        """The lines that explain ``result`` when it shows no groups, or folders went unread."""
        lines: list[str] = []
        loc = QLocale()
        unreadable = [p for p in result.problems if p.kind == ProblemKind.UNREADABLE
                      and p.code in ("folder_permission", "permission")]
        if unreadable:
            lines.append(self.tr("%Ln files or folders could not be read (permission denied); "
                                 "the Problems tab lists them.", "", len(unreadable)))
        if result.groups:
            return lines
        if not result.documents:
            lines.append(self._nothing_read(result, loc))
            return lines
        if len(result.documents) == 1:
            lines.append(self.tr("Only one file was compared: there is nothing to compare it "
                                 "with."))
            return lines
        excerpts = (len(result.excerpts()) if result.options.excerpt_containment is not None
                    else 0)
        if excerpts:  # alike in part, not as wholes: never "none of these files are alike"
            lines.append(self.tr("No two of these files are alike as wholes, but %Ln of them "
                                 "lie mostly inside another: the Excerpts tab shows where.", "",
                                 excerpts))
            return lines
        if not len(result.pairs):
            lines.append(self.tr("None of these %Ln files are alike: no two share enough text "
                                 "to be worth showing.", "", len(result.documents)))
            return lines
        best = float(result.pairs.score.max())
        lines.append(self.tr("No two of these files are {t} alike or more. The closest two are "
                             "{best} alike: move the threshold below that to see them.").format(
            t=loc.toString(100 * result.threshold, "f", 0) + " %",
            best=loc.toString(100 * best, "f", 0) + " %"))
        return lines

    def _nothing_read(self, result: ScanResult, loc: QLocale) -> str:
        """Why no file was compared: none of a type neardup reads (and which types were
        there), none at all, or every one a problem."""
        walk = result.stats.get("walk", {}) if isinstance(result.stats, dict) else {}
        skipped: dict[str, int] = dict(walk.get("skipped_suffixes", {}) or {})
        if skipped:
            ranked = sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0]))
            bare = self.tr("without an extension")
            named = [f"{loc.toString(n)} {s or bare}" for s, n in ranked[:TYPES_NAMED]]
            rest = sum(n for _, n in ranked[TYPES_NAMED:])
            if rest:
                named.append(self.tr("%Ln of other types", "", rest))
            return self.tr("No file here is one neardup reads ({types}). Skipped: {list}."
                           ).format(types=", ".join(result.options.include),
                                    list=", ".join(named))
        if not result.problems:
            return self.tr("No files were found in the scanned folders.")
        return self.tr("No file could be compared: the Problems tab says why for each.")


def explain(result: ScanResult) -> list[str]:
    """The explanation lines for ``result`` (see :class:`Explainer`)."""
    return Explainer().explain(result)
