"""`evaluator.py`: semantics of every construct, and runtime errors with their kind and position."""

from __future__ import annotations

import pytest

from tests.tfl.conftest import error, ok, run


@pytest.mark.parametrize(
    ("script", "output"),
    [
        ("print(1 + 2 * 3)", "7"),
        ("print(7 / 2, 7 // 2, 7 % 3, -7 // 2)", "3.5 3 1 -4"),
        ("print(1.5 + 1, 2 - 0.5)", "2.5 1.5"),
        ('print("ab" + "cd", "ab" * 3, 2 * "x")', "abcd ababab xx"),
        ("print([1] + [2, 3], [0] * 3, 2 * [1])", "[1, 2, 3] [0, 0, 0] [1, 1]"),
        ('print("x" * -1, [1] * 0)', " []"),
        ("print(-3, +3, --3, not 0, not [1])", "-3 3 3 true false"),
        ("print(1 == 1.0, 1 != 2, 2 < 3, 3 <= 3, 4 > 5, 5 >= 6)", "true true true true false false"),
        ('print("a" < "b", "b" >= "a")', "true true"),
        ('print(2 in [1, 2], "k" in {"k": 1}, "ell" in "hello", 3 not in [3])', "true true true false"),
        ("print(1 and 2, 0 and 2, 0 or 3, null or false)", "2 0 3 false"),
        ('print(null, true, false, 1.0, "s", ["s"], {"k": null})', 'null true false 1.0 s ["s"] {"k": null}'),
        ('print("a", "b", sep="-")', "a-b"),
        ("print()", ""),
        ('print(len("abc"), len([1, 2]), len({"a": 1}))', "3 2 1"),
        ('print(str(12) + "!", str([1, "a"]), str("x"))', '12! [1, "a"] x'),
        ('print(int("42"), int(3.9), int(-3.9), int(true), float("2.5"), float(2))', "42 3 -3 1 2.5 2.0"),
        ("print(range(3), range(1, 4), range(10, 0, -3))", "[0, 1, 2] [1, 2, 3] [10, 7, 4, 1]"),
        ('d = {"a": 1, "b": 2}\nprint(keys(d), values(d), items(d))', '["a", "b"] [1, 2] [["a", 1], ["b", 2]]'),
        ('print([10, 20, 30][-1], "hey"[1], {"k": [5]}["k"][0])', "30 e 5"),
    ],
)
def test_expressions(script: str, output: str) -> None:
    assert ok(script) == output


def test_variables_if_elif_else_and_for() -> None:
    script = """
total = 0
labels = []
for n in range(1, 6):
    if n % 2 == 0:
        labels = labels + ["even"]
    elif n == 5:
        labels = labels + ["five"]
    else:
        labels = labels + ["odd"]
    total = total + n
print(total, labels)
for ch in "ab":
    print(ch)
for k in {"x": 1, "y": 2}:
    print(k)
if false: print("never")
else: print("else branch")
"""
    assert ok(script) == '15 ["odd", "even", "odd", "even", "five"]\na\nb\nx\ny\nelse branch'


def test_index_assignment_copies_so_aliases_do_not_change() -> None:
    script = """
a = [1, [2, 3]]
b = a
b[1][0] = 9
d = {}
d["k"] = "v"
d["k"] = "w"
print(a, b, d)
"""
    assert ok(script) == '[1, [2, 3]] [1, [9, 3]] {"k": "w"}'


def test_last_expression_is_echoed_like_a_console() -> None:
    assert ok('x = {"a": [1, 2]}\nx["a"]') == "[1, 2]"
    assert ok('"bare string"') == "bare string"
    assert ok("print(1)\nnull") == "1"
    assert ok("x = 1") == ""
    assert ok("") == ""


def test_tool_calls_positional_and_keyword() -> None:
    assert ok('r = search("cats", n=2)\nprint(r[1]["title"], len(r))') == "cats 1 2"
    assert ok('print(search(query="x", n=1))') == '[{"title": "x 0", "rank": 0}]'
    assert ok('print(fetch("u"))') == "<html>u</html>"
    assert ok("print(everything(a=1, b=[true]))") == '{"a": 1, "b": [true]}'


def test_tool_result_with_attachments_behaves_as_its_value() -> None:
    script = 'c = chart(title="t")\nprint(c["title"], c["points"] + 1, c)\nattach(c)'
    result = run(script)
    assert result.result == 't 4 {"title": "t", "points": 3}'
    assert [a.type for a in result.attachments] == ["image"]


@pytest.mark.parametrize(
    ("script", "kind", "line", "column", "words"),
    [
        ("x = 1 / 0", "value", 1, 7, "division by zero"),
        ("x = 5 % 0", "value", 1, 7, "division by zero"),
        ('x = 1 + "a"', "type", 1, 7, "str(x)"),
        ("x = [1] < [2]", "type", 1, 9, "cannot compare"),
        ('x = {"a": 1}\ny = x["b"]', "index", 2, 7, "keys: 'a'"),
        ('x = {"a": 1}\ny = x[0]', "type", 2, 7, "dict keys are strings"),
        ('x = [1]\ny = x["0"]', "type", 2, 7, "integer"),
        ("x = 3\ny = x[0]", "type", 2, 5, "cannot index"),
        ("x = -[1]", "type", 1, 5, "needs a number"),
        ("for x in 5:\n    pass", "type", 1, 10, "cannot loop"),
        ("x = 1 in 2", "type", 1, 7, "`in` needs"),
        ('x = 1 in "abc"', "type", 1, 7, "string on the left"),
        ('x = int("abc")', "value", 1, 5, "cannot convert"),
        ('x = float("1e999")', "value", 1, 5, "finite"),
        ("x = range(1, 2, 0)", "value", 1, 5, "step"),
        ('x = range("3")', "type", 1, 5, "integers"),
        ("x = len(3)", "type", 1, 5, "len()"),
        ("x = keys([1])", "type", 1, 5, "takes a dict"),
        ("print(1, sep=2)", "type", 1, 1, "sep"),
        ("x = 2 ** 3", "syntax", 1, 8, "unexpected"),
        ("x = [1]\nx[3] = 1", "index", 2, 3, "out of range"),
        ("x = 1\nx[0] = 1", "type", 2, 3, "cannot assign into"),
        ('d = {}\nd["a"]["b"] = 1', "index", 2, 3, "no key 'a'"),
        ("d = {}\nd[1] = 2", "type", 2, 3, "dict keys are strings"),
        ("d = {1: 2}", "type", 1, 6, "dict keys are strings"),
        ("attach(1)", "type", 1, 8, "attach()"),
        ('attach(search("q"))', "type", 1, 8, "attach()"),
    ],
)
def test_runtime_errors_have_kind_and_position(script: str, kind: str, line: int, column: int, words: str) -> None:
    found = error(script)
    assert (found["kind"], found["line"], found["column"]) == (kind, line, column), found
    assert words in found["message"]


def test_runtime_error_inside_loop_reports_after_partial_output() -> None:
    result = run("for i in [2, 1, 0]:\n    print(6 / i)")
    assert result.result.startswith("3.0\n6.0\nTFL value error at line 2, column 13: division by zero")
