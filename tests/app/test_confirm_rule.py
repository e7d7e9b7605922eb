"""The confirmation's "similar, not identical" warning, computed from the flat group table,
says what the per-member object rule said."""

from __future__ import annotations

from types import SimpleNamespace

import _app_factory as factory

from app.dialogs.confirm import similar_not_identical


def _old_rule(docs: set[int], result) -> bool:
    return any(not g.exact and any(m.doc in docs for m in g.members) for g in result.groups)


def test_similar_not_identical_matches_the_object_rule(qapp) -> None:
    docs = [factory.document(f"/d/{i}.txt", text, size=10, mtime=1.7e9) for i, text in enumerate(
        ["same words", "same words", "other text", "other text!", "alone"])]
    # 0-1 identical texts (exact group), 2-3 near copies, 4 alone
    result = factory.build(docs, near=[(0, 1, 1.0), (2, 3, 0.8)])
    for chosen in ([], [0], [1], [2], [3], [4], [0, 3], [1, 4]):
        plan = SimpleNamespace(items=[SimpleNamespace(doc=d) for d in chosen])
        assert similar_not_identical(plan, result) == _old_rule(set(chosen), result), chosen
    assert similar_not_identical(SimpleNamespace(items=[SimpleNamespace(doc=3)]), result)
