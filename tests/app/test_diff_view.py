"""The compare view: rows stay aligned, changes are highlighted and navigable, limits are said."""

from __future__ import annotations

import concurrent.futures

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette

from app.widgets.diff_rows import LEFT, RIGHT, build_diff, change_blocks
from app.widgets.diff_view import DiffView
from neardup_core.diff import DiffResult, aligned_diff

LEFT_ZH = "\n".join([
    "近年来，城市公共交通的发展速度明显加快。",
    "许多市民选择乘坐地铁上下班。",
    "与此同时，共享单车解决了最后一公里的难题。",
    "这一行只在左边。",
    "部分城市开始划定专门的停车区域。",
    "公交系统也在不断优化。",
    "总的来说，城市交通正在朝着绿色的方向发展。",
])
RIGHT_ZH = "\n".join([
    "近年来，城市公共交通的发展速度明显加快。",
    "许多市民选择乘坐轻轨上下班。",           # one character changed: 地铁 -> 轻轨 (two chars)
    "与此同时，共享单车解决了最后一公里的难题。",
    "部分城市开始划定专门的停车区域。",
    "公交系统也在不断优化。",
    "这一行只在右边，是新加的。",
    "总的来说，城市交通正在朝着绿色的方向发展。",
])


@pytest.fixture
def view(qtbot) -> DiffView:
    v = DiffView()
    qtbot.addWidget(v)
    v.resize(1000, 400)
    v.show()
    qtbot.waitExposed(v)
    return v


def side_texts(view: DiffView, side: int) -> list[str | None]:
    return [r.left if side == LEFT else r.right for r in view.canvas().rows()]


def test_rows_aligned_with_filler_on_the_other_side(view: DiffView) -> None:
    view.set_pair("/a/左.txt", LEFT_ZH, "/b/右.txt", RIGHT_ZH)
    left, right = side_texts(view, LEFT), side_texts(view, RIGHT)
    assert len(left) == len(right) == len(view.canvas().rows())
    # every line of each text is on its side, in order; the other side has filler rows
    assert [t for t in left if t is not None] == LEFT_ZH.splitlines()
    assert [t for t in right if t is not None] == RIGHT_ZH.splitlines()
    kinds = [r.kind for r in view.canvas().rows()]
    assert "delete" in kinds and "insert" in kinds
    for r in view.canvas().rows():
        assert (r.left is None) == (r.kind == "insert")
        assert (r.right is None) == (r.kind == "delete")
    # equal lines sit on the same row on both sides
    for r in view.canvas().rows():
        if r.kind == "equal":
            assert r.left == r.right
    assert view.titles() == ("/a/左.txt", "/b/右.txt")


def test_bands_painted_at_the_same_height_on_both_sides(view: DiffView, qtbot) -> None:
    view.set_pair("a.txt", LEFT_ZH, "b.txt", RIGHT_ZH)
    canvas = view.canvas()
    canvas.verticalScrollBar().setValue(0)
    qtbot.wait(10)
    image = canvas.viewport().grab().toImage()
    colors = canvas.colors()
    rows = canvas.rows()
    ins = next(i for i, r in enumerate(rows) if r.kind == "insert")
    dele = next(i for i, r in enumerate(rows) if r.kind == "delete")
    eq = next(i for i, r in enumerate(rows) if r.kind == "equal")
    ratio = image.width() / canvas.viewport().width()

    def pixel(side: int, row: int) -> QColor:
        y = canvas.row_top(row) + canvas.row_height(row) // 2
        x = canvas.side_x(side) + canvas.side_width() - 6
        return image.pixelColor(int(x * ratio), int(y * ratio))

    assert pixel(RIGHT, ins) == colors.insert
    assert pixel(LEFT, dele) == colors.delete
    assert pixel(LEFT, eq) == colors.base == pixel(RIGHT, eq)
    # the side without text at an insert row is hatched filler, not the insert band
    y = canvas.row_top(ins) + canvas.row_height(ins) // 2
    xs = range(canvas.text_x(LEFT), canvas.text_x(LEFT) + 40)
    seen = {image.pixelColor(int(x * ratio), int(y * ratio)).name() for x in xs}
    assert colors.filler.name() in seen
    assert colors.insert.name() not in seen


def test_chinese_one_character_change_is_highlighted(view: DiffView) -> None:
    left = "今天天气很好，我们去公园散步。"
    right = "今天天气很好，我们去公园跑步。"
    view.set_pair("a.txt", left, "b.txt", right)
    canvas = view.canvas()
    (row,) = [i for i, r in enumerate(canvas.rows()) if r.kind == "replace"]
    colors = canvas.colors()
    for side, text in ((LEFT, left), (RIGHT, right)):
        fmts = canvas.row_formats(side, row)
        assert [(f.start, f.length) for f in fmts] == [(12, 1)]
        assert text[12] in "散跑"
        assert fmts[0].format.background().color() == colors.replace_strong
        assert canvas.row_background(side, row) == colors.replace
    # the stronger tint really differs from the row tint
    assert colors.replace_strong != colors.replace


def test_english_changes_are_highlighted_by_word(view: DiffView) -> None:
    view.set_pair("a.txt", "The quick brown fox jumps.", "b.txt", "The quick red fox jumps.")
    canvas = view.canvas()
    fl = canvas.row_formats(LEFT, 0)
    fr = canvas.row_formats(RIGHT, 0)
    assert [(f.start, f.length) for f in fl] == [(10, 5)]   # "brown"
    assert [(f.start, f.length) for f in fr] == [(10, 3)]   # "red"


def three_changes() -> tuple[str, str]:
    same = [f"unchanged line {i}" for i in range(60)]
    left = list(same)
    right = list(same)
    right[5] = "changed line five"
    right[30] = "changed line thirty"
    del right[55]
    return "\n".join(left), "\n".join(right)


def test_next_and_previous_move_the_cursor_and_signal(view: DiffView, qtbot) -> None:
    left, right = three_changes()
    with qtbot.waitSignal(view.changeIndexChanged) as first:
        view.set_pair("a.txt", left, "b.txt", right)
    assert first.args == [1, 3]  # the first change is shown at once
    blocks = change_blocks(view.diff())
    assert view.current_row() == blocks[0].start
    assert view.position_text() == "change 1 of 3"
    assert not view.previous_action.isEnabled()

    with qtbot.waitSignal(view.changeIndexChanged) as sig:
        view.next_change()
    assert sig.args == [2, 3]
    assert view.current_row() == blocks[1].start
    assert view.canvas().current() == blocks[1]
    assert view.position_text() == "change 2 of 3"

    view.next_change()
    assert view.current_change() == 3
    assert not view.next_action.isEnabled()
    view.next_change()  # at the last change: stays
    assert view.current_change() == 3

    with qtbot.waitSignal(view.changeIndexChanged) as sig:
        view.previous_change()
    assert sig.args == [2, 3]
    assert view.current_row() == blocks[1].start


def test_going_to_a_change_scrolls_it_into_view(view: DiffView) -> None:
    left = "\n".join(f"line {i}" for i in range(2000))
    right = left.replace("line 1500\n", "line 1500 edited\n")
    view.set_pair("a.txt", left, "b.txt", right)
    canvas = view.canvas()
    row = view.current_row()
    assert row is not None and row > 1000
    top = canvas.verticalScrollBar().value()
    assert top <= canvas.row_top(row) < top + canvas.viewport().height()


def test_keyboard_shortcuts(view: DiffView, qtbot) -> None:
    left, right = three_changes()
    view.set_pair("a.txt", left, "b.txt", right)
    view.activateWindow()
    view.canvas().setFocus()
    qtbot.keyClick(view.canvas(), Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert view.current_change() == 2
    qtbot.keyClick(view.canvas(), Qt.Key.Key_F7)
    assert view.current_change() == 3
    qtbot.keyClick(view.canvas(), Qt.Key.Key_F7, Qt.KeyboardModifier.ShiftModifier)
    assert view.current_change() == 2
    qtbot.keyClick(view.canvas(), Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert view.current_change() == 1


def test_clicking_between_changes_makes_next_start_there(view: DiffView, qtbot) -> None:
    left, right = three_changes()
    view.set_pair("a.txt", left, "b.txt", right)
    blocks = change_blocks(view.diff())
    canvas = view.canvas()
    row = blocks[1].start + 3  # an equal row after the second change
    canvas.scroll_to_row(row, 0.5)
    y = canvas.row_top(row) - canvas.verticalScrollBar().value() + 3
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(canvas.text_x(LEFT) + 5, y))
    assert view.current_change() == 0
    view.next_change()
    assert view.current_change() == 3


def test_change_map_click_jumps(view: DiffView, qtbot) -> None:
    left, right = three_changes()
    view.set_pair("a.txt", left, "b.txt", right)
    cmap = view.change_map()
    blocks = change_blocks(view.diff())
    canvas = view.canvas()
    scale = cmap.height() / canvas.content_height()
    y = int(canvas.row_top(blocks[2].start) * scale) + 1
    with qtbot.waitSignal(view.changeIndexChanged) as sig:
        qtbot.mouseClick(cmap, Qt.MouseButton.LeftButton, pos=QPoint(5, y))
    assert sig.args == [3, 3]


def test_truncated_diff_shows_a_banner(view: DiffView) -> None:
    left = "\n".join(f"第{i}行的内容" for i in range(120))
    right = left.replace("第3行", "第三行")
    diff = aligned_diff(left, right, max_lines=50)
    assert diff.truncated
    view.set_diff("a.txt", "b.txt", diff, header="Similarity 97%")
    assert "50" in view.banner_text()
    assert "first" in view.banner_text()
    assert len(view.canvas().rows()) == 50
    view.set_pair("a.txt", "x\ny", "b.txt", "x\nz")
    assert view.banner_text() == ""


def test_identical_texts_and_clear(view: DiffView, qtbot) -> None:
    with qtbot.waitSignal(view.changeIndexChanged) as sig:
        view.set_pair("a.txt", "同样的文字\n第二行", "b.txt", "同样的文字\n第二行")
    assert sig.args == [0, 0]
    assert view.position_text() == "No differences"
    assert not view.next_action.isEnabled()
    with qtbot.waitSignal(view.changeIndexChanged) as sig:
        view.clear()
    assert sig.args == [0, 0]
    assert view.canvas().rows() == ()
    assert view.titles() == ("", "")
    view.next_change()  # harmless with nothing shown
    view.grab()


def test_word_wrap_keeps_rows_aligned(view: DiffView, qtbot) -> None:
    long_left = "很长的一行" * 120
    view.set_pair("a.txt", f"开头\n{long_left}\n结尾", "b.txt", "开头\n短的一行\n结尾")
    canvas = view.canvas()
    assert canvas.horizontalScrollBar().maximum() > 0  # no wrap: scroll sideways
    row = next(i for i, r in enumerate(canvas.rows()) if r.left == long_left)
    assert canvas.row_height(row) == canvas.line_height()

    view.set_word_wrap(True)
    assert view.wrap_action.isChecked()
    canvas.finish_layout()
    lines = canvas._layout(LEFT, row).lineCount()
    assert lines > 1
    assert canvas.row_height(row) == lines * canvas.line_height()
    # the next row starts below the whole wrapped row, on both sides (one shared top)
    assert canvas.row_top(row + 1) == canvas.row_top(row) + lines * canvas.line_height()
    assert canvas.horizontalScrollBar().maximum() == 0
    view.grab()

    view.wrap_action.setChecked(False)
    assert not view.word_wrap()
    assert canvas.row_height(row) == canvas.line_height()


def test_copy_joins_split_lines_back(view: DiffView) -> None:
    sentence = "这是一个相当长的句子，用来测试分段。"
    long_line = sentence * 60  # longer than the core's split length: shown as several rows
    left = f"第一行\n{long_line}\n最后一行"
    view.set_pair("a.txt", left, "b.txt", left.replace("最后", "最終"))
    canvas = view.canvas()
    assert len(canvas.rows()) > 3
    canvas.select_all(LEFT)
    assert canvas.selected_text() == left
    canvas.copy()
    assert QGuiApplication.clipboard().text() == left


def test_mouse_drag_selects_text(view: DiffView, qtbot) -> None:
    view.set_pair("a.txt", "abcdef\nsecond", "b.txt", "abcdef\nsecond line")
    canvas = view.canvas()
    y = canvas.row_top(0) - canvas.verticalScrollBar().value() + canvas.line_height() // 2
    x0 = canvas.text_x(RIGHT)
    qtbot.mousePress(canvas.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x0 - 1, y))
    qtbot.mouseMove(canvas.viewport(), QPoint(x0 + 400, y + canvas.line_height()))
    qtbot.mouseRelease(canvas.viewport(), Qt.MouseButton.LeftButton,
                       pos=QPoint(x0 + 400, y + canvas.line_height()))
    assert canvas.selected_text() == "abcdef\nsecond line"


def test_dark_palette_gives_dark_tints(qtbot) -> None:
    v = DiffView()
    qtbot.addWidget(v)
    pal = QPalette(v.palette())
    pal.setColor(QPalette.ColorRole.Base, QColor("#1e1e1e"))
    pal.setColor(QPalette.ColorRole.Text, QColor("#e6e6e6"))
    v.setPalette(pal)
    v.set_pair("a.txt", "一二三", "b.txt", "一二四")
    colors = v.canvas().colors()
    text = QColor("#e6e6e6")
    for c in (colors.replace, colors.replace_strong, colors.insert, colors.delete):
        assert c.lightness() < 128
        assert text.lightness() - c.lightness() > 90  # light text stays readable
    v.grab()


def test_build_diff_runs_off_the_main_thread(view: DiffView) -> None:
    left, right = three_changes()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        diff = pool.submit(build_diff, left, right).result()
    assert isinstance(diff, DiffResult)
    view.set_diff("a.txt", "b.txt", diff, "Similarity 95%")
    assert view.change_count() == 3


def test_hostile_names_are_shown_as_plain_text(view: DiffView) -> None:
    name = "/tmp/<b>bold</b>\n& 名字.txt"
    view.set_pair(name, "a", name, "b", header="<i>not html</i>")
    assert view.titles() == (name, name)
    assert view.findChild(type(view._header)) is not None
    assert view._header.textFormat() == Qt.TextFormat.PlainText
    view.grab()
