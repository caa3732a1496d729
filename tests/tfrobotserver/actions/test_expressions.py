"""The protocol's JMESPath: the official compliance suite, the parity files, and no crash on any input.

The console runs the same files (`web/tests/jmespath.test.ts`); together they show that both
sides give the same value, or an error of the same kind, for every case.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.tfrobotserver.actions import parity_cases
from tfrobotserver.actions.expression_functions import js_json, json_equal
from tfrobotserver.actions.expressions import (
    MAX_EXPRESSION_CHARS,
    MAX_NESTING,
    ExpressionError,
    compile_expression,
    evaluate,
    root_fields,
)

CONFORMANCE = Path(__file__).parents[3] / "conformance"
REWRITE = ".venv/bin/python -m tests.tfrobotserver.actions.parity_cases"


def _run(directory: str) -> tuple[int, list[str]]:
    """Cases run and the ones that disagree with their file."""
    total, misses = 0, []
    for path in sorted((CONFORMANCE / directory).glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            for case in group["cases"]:
                total += 1
                try:
                    got: Any = {"value": evaluate(case["expression"], group["given"])}
                except ExpressionError as exc:
                    got = {"error": exc.kind}
                if "bench" in case:
                    ok = "value" in got
                elif "error" in case:
                    ok = got == {"error": case["error"]}
                else:
                    ok = "value" in got and json_equal(got["value"], case["result"])
                if not ok:
                    misses.append(f"{path.name}: {case['expression']!r} gave {got}")
    return total, misses


def test_official_compliance_suite_passes_whole(capsys: pytest.CaptureFixture[str]) -> None:
    total, misses = _run("jmespath")
    with capsys.disabled():
        print(f"\nJMESPath official suite: {total - len(misses)}/{total} cases pass (Python)")
    assert misses == []
    assert total == 908


def test_parity_files_are_current(capsys: pytest.CaptureFixture[str]) -> None:
    total, misses = _run("jmespath-parity")
    with capsys.disabled():
        print(f"\nJMESPath parity cases: {total - len(misses)}/{total} agree with the server (Python)")
    assert misses == []
    for name in parity_cases.FILES:
        on_disk = (parity_cases.DIR / f"{name}.json").read_text(encoding="utf-8")
        stale = f"conformance/jmespath-parity/{name}.json is stale: run {REWRITE}"
        assert on_disk == parity_cases.render(name), stale
    assert total > 8000


@pytest.mark.parametrize(
    ("expression", "data", "expected"),
    [
        ("'7' < `5`", {}, None),  # was a bare TypeError
        ("items[?score < `5`].score", {"items": [{"score": None}, {"score": 1}, {"score": True}, {"score": "1"}]}, [1]),
        ("'a' < 'b'", {}, True),  # strings order by code point, as Python jmespath does
        ("'～' < '😀'", {}, True),  # U+FF5E < U+1F600 (UTF-16 code units would say the opposite)
        ("[`true`] == [`1`]", {}, False),  # Python's True == 1 leaked through lists
        ("contains(@, `1`)", [True], False),
        ("to_number('1_000')", {}, None),  # Python int() grammar, not JSON's
        ("to_number('Infinity')", {}, None),
        ("to_string(@)", {"b": 1.0, "1": "中文"}, '{"1":"中文","b":1}'),
        ("keys(@)", {"b": 1, "1": 2}, ["1", "b"]),
        ("sum(@)", [0.1, 0.2, 0.3], 0.1 + 0.2 + 0.3),
    ],
)
def test_values_the_browser_reproduces(expression: str, data: Any, expected: Any) -> None:
    got = evaluate(expression, data)
    assert json_equal(got, expected)
    assert type(got) is type(expected)


@pytest.mark.parametrize(
    ("expression", "data", "kind"),
    [
        ("min_by(@, &a)", [{"a": 1}, {"a": "x"}], "invalid-type"),  # was a bare TypeError
        ("merge(`{}`, @)", [["a", 1]], "invalid-type"),  # Python's dict.update took pairs
        ("abs(a)", {"a": "x"}, "invalid-type"),
        ("`foo`", {}, "syntax"),  # the deprecated unquoted literal
        ("`NaN`", {}, "syntax"),
        ("a || nope(b)", {"a": 1}, "unknown-function"),  # refused even in a branch that never runs
        ("length(&a)", {}, "invalid-type"),
        ("[::0]", [], "invalid-value"),
        ("!" * (MAX_NESTING + 1) + "a", {}, "invalid-value"),
        ("a" * (MAX_EXPRESSION_CHARS + 1), {}, "invalid-value"),
        ("to_string(@)", json.loads("[" * 300 + "]" * 300), "invalid-value"),
    ],
)
def test_every_failure_is_an_expression_error_with_a_kind(expression: str, data: Any, kind: str) -> None:
    with pytest.raises(ExpressionError) as info:
        evaluate(expression, data)
    assert info.value.kind == kind
    assert info.value.expression.startswith(expression[:40])


def test_root_fields_are_the_document_fields_read() -> None:
    assert root_fields("@.page") == ["page"]
    assert root_fields("`1`") == []
    assert root_fields("items[*].docId") == ["items"]
    assert root_fields("[page, docId] | [0]") == ["page", "docId"]
    assert root_fields("sort_by(items, &x)[0].y") == ["items"]
    assert compile_expression("a.b") is compile_expression("a.b")  # cached


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["a", "0", "c d"]), inner, max_size=4),
    max_leaves=12,
)  # fmt: skip
TOKENS = st.sampled_from(
    ["a", "b", "@", ".", "*", "[", "]", "[?", "[]", "(", ")", "{", "}", ":", ",", "|", "||", "&&", "&", "!", "<",
     "<=", "==", "!=", ">", "`1`", "`\"s\"`", "`null`", "'x'", '"0"', "0", "-1", "2", " ", "abs", "sort_by",
     "length", "to_number", "to_string", "keys", "max_by", "contains", "merge", "not_null", "`", "'", '"', "=", "-",
     "$", "?", "\\"]
)  # fmt: skip


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expression=st.lists(TOKENS, max_size=14).map("".join) | st.text(max_size=12), data=JSON)
def test_no_input_crashes_the_evaluator(expression: str, data: Any) -> None:
    kinds = {"syntax", "invalid-type", "invalid-arity", "unknown-function", "invalid-value"}
    try:
        value = evaluate(expression, data)
    except ExpressionError as exc:
        kind = exc.kind
    else:
        kind = "value"
        json.loads(js_json(value))  # always a JSON value the console can show
    assert kind in {*kinds, "value"}
