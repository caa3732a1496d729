"""`checker.py`: what `validate` finds without running a script (names, calls, arguments), all at once."""

from __future__ import annotations

import pytest

from tests.tfl.conftest import error, interpreter, ok
from tfrobot.tfl import CallableToolRegistry, TFLInterpreter


def test_validation_reports_all_static_errors_before_running() -> None:
    script = 'print("side effect")\nx = serch(q=1)\ny = search(qury="a")\nprint(zz)\nlen(1, 2)'
    it = interpreter()
    errors = it.validate(script)
    assert [(e.kind, e.line, e.column) for e in errors] == [
        ("name", 2, 5),
        ("argument", 3, 12),
        ("argument", 3, 5),
        ("name", 4, 7),
        ("argument", 5, 1),
    ]
    assert "did you mean 'search'" in errors[0].message
    assert "did you mean 'query'" in errors[1].message
    result = it.run(script)
    assert "side effect" not in result.result  # nothing ran
    assert result.trace_meta is not None
    assert result.trace_meta["steps"] == 0
    assert result.trace_meta["error"] == errors[0].meta()
    assert result.trace_meta["errors"] == [e.meta() for e in errors]
    assert result.result.count("TFL ") == 5


@pytest.mark.parametrize(
    ("script", "words"),
    [
        ('search("a", "b", "c")', "at most 2 arguments"),
        ('search("a", query="b")', "given twice"),
        ("search()", "needs argument(s) query"),
        ("print(end=1)", "no keyword 'end'"),
        ("range()", "wrong number of arguments"),
        ("x = search", "is a tool: call it"),
        ("x = print", "is a builtin: call it"),
        ("y = x\nx = 1", "not defined"),
        ('x["k"] = 1', "not defined before this line"),
    ],
)
def test_validate_checks_calls_and_names(script: str, words: str) -> None:
    errors = interpreter().validate(script)
    assert errors, script
    assert words in errors[0].message


def test_validate_accepts_good_scripts_and_loop_variables() -> None:
    script = "for i in range(3):\n    x = i\nprint(x, i)\nif true:\n    y = 1\nprint(y)\neverything(anything=1)"
    assert interpreter().validate(script) == []


def test_a_loop_body_may_read_what_it_assigns_on_an_earlier_turn() -> None:
    script = "for i in range(3):\n    if i > 0:\n        print(prev, i)\n    prev = i\n"
    assert interpreter().validate(script) == []
    assert ok(script) == "0 1\n1 2"
    found = error("for i in range(3):\n    print(prev)\n    prev = i\n")
    assert (found["kind"], found["line"], found["column"]) == ("name", 2, 11)


def test_keyword_only_tools_refuse_positional_arguments() -> None:
    def lookup(key: str) -> str:
        return key

    it = TFLInterpreter(CallableToolRegistry([lookup], positional=False))
    assert "keyword arguments only" in it.validate('lookup("k")')[0].message
    assert it.validate('lookup(key="k")') == []
