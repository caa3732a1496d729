"""Error rendering: headline, excerpt with caret under the span, and the trace_meta form."""

from __future__ import annotations

from tfrobot.tfl import TFLError


def test_render_points_at_the_span() -> None:
    err = TFLError(kind="name", message="unknown tool 'serch'", line=2, column=5, end_line=2, end_column=10)
    source = "x = 1\ny = serch(q=1)\n"
    assert err.render(source) == (
        "TFL name error at line 2, column 5: unknown tool 'serch'\n2 | y = serch(q=1)\n  |     ^^^^^"
    )


def test_render_single_caret_without_end_and_wide_gutter() -> None:
    err = TFLError(kind="syntax", message="bad", line=10, column=3)
    source = "\n" * 9 + "abcdef\n"
    assert err.excerpt(source) == "10 | abcdef\n   |   ^"


def test_caret_is_clipped_to_the_line_and_multiline_spans_get_one_caret() -> None:
    err = TFLError(kind="type", message="m", line=1, column=3, end_line=1, end_column=99)
    assert err.excerpt("abcd").endswith("|   ^^")
    err = TFLError(kind="type", message="m", line=1, column=2, end_line=3, end_column=1)
    assert err.excerpt("abcd\nx\ny").endswith("|  ^")


def test_caret_past_end_of_line() -> None:
    err = TFLError(kind="syntax", message="unexpected end of line", line=1, column=8)
    assert err.excerpt("x = 1 +") == "1 | x = 1 +\n  |        ^"


def test_no_position_means_headline_only() -> None:
    err = TFLError(kind="limit", message="script too long")
    assert err.render("x = 1") == "TFL limit error: script too long"
    err = TFLError(kind="syntax", message="m", line=7, column=1)
    assert err.render("x") == "TFL syntax error at line 7, column 1: m"


def test_meta_has_the_four_keys() -> None:
    err = TFLError(kind="index", message="m", line=1, column=2, end_column=4, end_line=1)
    assert err.meta() == {"kind": "index", "line": 1, "column": 2, "message": "m"}


def test_long_lines_are_shown_as_a_window_with_the_caret_in_place() -> None:
    source = "x = [" + ", ".join(str(i) for i in range(300)) + ", y]"
    column = source.index("y") + 1
    err = TFLError(kind="name", message="m", line=1, column=column, end_line=1, end_column=column + 1)
    code, caret = err.excerpt(source).split("\n")
    assert code.startswith("1 | …")
    assert len(code) < 110
    assert code[caret.index("^")] == "y"
    start = TFLError(kind="name", message="m", line=1, column=5, end_line=1, end_column=6)
    code, caret = start.excerpt("x = y" + " " * 200 + "z").split("\n")
    assert code.endswith("…")
    assert code[caret.index("^")] == "y"


def test_lines_are_counted_as_the_parser_counts_them() -> None:
    from tests.tfl.conftest import run

    # a form feed and a Unicode line separator are not line breaks for the parser, nor for the excerpt
    result = run("x = 1\x0c\ny = \u2028 2\r\nz = x +\r\n")
    assert result.trace_meta is not None
    error = result.trace_meta["error"]
    assert isinstance(error, dict)
    assert error["line"] == 2
    assert "2 | y = \u2028 2" in result.result
    result = run("a = 1\r\nb = (a +\r\n")
    assert result.trace_meta is not None
    error = result.trace_meta["error"]
    assert isinstance(error, dict)
    assert (error["kind"], error["line"], error["column"]) == ("syntax", 2, 9)
    assert result.result.endswith("2 | b = (a +\n  |         ^")
