"""Writes `conformance/jmespath-parity/*.json`: mixed-type cases whose expected values the server computes.

The files use the compliance suite's format (`given`, `cases` with `result` or `error`), so the
same runners read them in Python (`test_expressions.py`) and TypeScript (`web/tests/jmespath.test.ts`).
Each case's expectation is what `tfrobotserver.actions.expressions.evaluate` gives today; the
console must give the same. `test_parity_files_are_current` fails when the files and the server
disagree; rewrite them with `.venv/bin/python -m tests.tfrobotserver.actions.parity_cases`.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

from tfrobotserver.actions.expressions import ExpressionError, evaluate

DIR = Path(__file__).parents[3] / "conformance" / "jmespath-parity"

VALUES: list[Any] = [None, True, False, 0, 1, -1, 5, 1.5, -0.5, "5", "7", "a", "b", "", "～", "😀", "é",
                     [], [1], [True], [1, 2], {}, {"a": 1}, {"a": True}]  # fmt: skip
OPS = ["<", "<=", ">", ">=", "==", "!="]
FUNCTIONS_1 = ["abs", "avg", "ceil", "floor", "keys", "length", "max", "min", "not_null", "reverse", "sort",
               "sum", "to_array", "to_number", "to_string", "type", "values"]  # fmt: skip
FUNCTIONS_2 = ["contains", "ends_with", "starts_with", "join", "merge", "not_null"]
BY = ["map", "sort_by", "min_by", "max_by"]


def _literal(value: Any) -> str:
    return "`" + json.dumps(value, ensure_ascii=False).replace("`", "\\`") + "`"


def _case(expression: str, given: Any) -> dict[str, Any]:
    try:
        return {"expression": expression, "result": evaluate(expression, given)}
    except ExpressionError as exc:
        return {"expression": expression, "error": exc.kind}


def _group(given: Any, expressions: list[str], comment: str) -> dict[str, Any]:
    return {"comment": comment, "given": given, "cases": [_case(e, given) for e in expressions]}


def comparisons() -> list[dict[str, Any]]:
    given = {"v": VALUES}
    pairs = itertools.product(range(len(VALUES)), range(len(VALUES)), OPS)
    filters = {
        "items": [{"score": v} for v in VALUES],
        "names": ["b", "a", "😀", "～", "B", "", "ab"],
    }
    filter_exprs = [f"items[?score {op} {_literal(v)}].score" for op in OPS for v in (5, "5", None, True, "a")]
    filter_exprs += [f"names[?@ {op} 'a']" for op in OPS] + ["items[?score]", "items[?!score]", "sort(names)"]
    return [
        _group(given, [f"v[{i}] {op} v[{j}]" for i, j, op in pairs], "ordering and equality of every pair of types"),
        _group(filters, filter_exprs, "filters over mixed-type fields (a null score never matches an ordering)"),
    ]


def slices() -> list[dict[str, Any]]:
    bounds, steps = ["", "0", "1", "-1", "3", "-4", "10", "-10"], ["", "1", "2", "-1", "-2", "0"]
    exprs = [f"[{a}:{b}]" for a, b in itertools.product(bounds, bounds)]
    exprs += [f"[{a}:{b}:{c}]" for a, b, c in itertools.product(bounds, bounds, steps)]
    exprs += ["[:::]", "[::::]", "[1:2:3:4]", "[-]", "[--1]", "[1-2]", "[- 1]", "[0x1]", "[01]", "[-0]", "[1.5]"]
    return [
        _group(given, exprs, f"every slice form over {label}")
        for label, given in (
            ("a list", [0, 1, 2, 3, 4]),
            ("a string", "abcde"),
            ("null", None),
            ("an object", {"a": 1}),
        )
    ]


def functions() -> list[dict[str, Any]]:
    given = {"v": VALUES, "people": [{"n": "b", "k": 2}, {"n": "a", "k": "x"}, {"n": "😀", "k": 1}, {"n": "～"}]}
    idx = range(len(VALUES))
    exprs = [f"{f}(v[{i}])" for f in FUNCTIONS_1 for i in idx]
    exprs += [f"{f}(v[{i}], v[{j}])" for f in FUNCTIONS_2 for i in idx for j in idx if (i + j) % 3 == 0]
    exprs += [f"{f}(&{k}, people)" if f == "map" else f"{f}(people, &{k})" for f in BY for k in ("n", "k", "@", "x")]
    exprs += [f"{f}(v, &@)" for f in BY[1:]] + ["map(&length(@), v)", "map(v, &a)", "sort_by(v, v)"]
    exprs += ["abs()", "abs(`1`, `2`)", "not_null()", "merge()", "nope(@)", "length(&a)", "&a", "[&a]", "{a: &a}",
              "not_null(&a)", "to_string(&a)", "sort_by(people, &&n)"]  # fmt: skip
    return [_group(given, exprs, "every function on every type, wrong types and arities included")]


NUMBER_TEXTS = ["1", "-0", "1.0", "1e3", "1E-2", "1_000", " 1", "1 ", "+1", ".5", "5.", "0x10", "1e400", "Infinity",
                "NaN", "", "-", "00", "１"]  # fmt: skip
FLOATS = [0.1, 0.2, 0.3, 1e21, 1e-7, 123456789.125, 1.5e-5, 0.000001, 1e20, -0.0, 5e-324, 1.7976931348623157e308]


def texts() -> list[dict[str, Any]]:
    given = {
        "o": {"b": 1, "10": 2, "1": 3, "a": 4, "01": 5, "-1": 6, "4294967295": 7, "4294967294": 8},
        "s": "a😀～é",
        "nums": NUMBER_TEXTS,
        "floats": FLOATS,
        "deep": {"a": {"b": {"c": [1, {"d": "中文"}]}}},
        "proto": {"__proto__": {"x": 1}},
    }
    exprs = ["keys(o)", "values(o)", "o.*", "to_string(o)", 'merge(o, `{"2": 0}`)', 'keys(merge(o, `{"2": 0}`))']
    exprs += [
        "length(s)",
        "reverse(s)",
        "starts_with(s, 'a😀')",
        "contains(s, '～')",
        "to_string(s)",
        "[s, s] | sort(@)",
    ]
    exprs += [f"to_number(nums[{i}])" for i in range(len(NUMBER_TEXTS))]
    exprs += [f"to_string(floats[{i}])" for i in range(len(FLOATS))]
    exprs += ["sum(floats[0:3])", "avg(floats[0:3])", "to_string(deep)", 'to_string(`"\\u0000\\u001f\\ud800"`)']
    exprs += ["`1e400`", "`NaN`", "`foo`", "`[1,`", '`"a\\`b"`', "'\\\\'", "'a\\'b'", "'\\n'", '"\\ud800"', '"a\\"b"']
    exprs += ["constructor", "toString", "__proto__", "o.constructor", "proto.__proto__", "{__proto__: s}",
              "keys(proto)",
              "merge(proto, `{\"constructor\": 1}`)", "length(hasOwnProperty)"]  # fmt: skip
    deep_literal = "`" + "[" * 129 + "]" * 129 + "`"
    limits = ["!" * 128 + "a", "!" * 129 + "a", "(" * 64 + "a" + ")" * 64, "(" * 129 + "a" + ")" * 129,
              deep_literal, "'" + "[" * 200 + "'", "a != b && " * 100 + "a", "a" * 4097]  # fmt: skip
    return [
        _group(given, exprs, "member order, code points, number grammar, JSON text, no inherited properties"),
        _group(given, limits, "the nesting and length bounds, counted the same way on both sides"),
    ]


_ALPHABET = "ab0-19.*@[](){}:,|&!<>=?'\"`$+-/ \\"
_FIELDS = ["a", "b", "c", "foo", '"0"', '"a b"']
_ATOMS = ["@", "`1`", "`null`", "'x'", '`"5"`', "`true`", '`[1, "a"]`', '`{"a": 2}`', "`-1.5`"]


def _random_expression(rng: random.Random, depth: int = 0) -> str:
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(_FIELDS + _ATOMS)
    sub = _random_expression(rng, depth + 1)
    other = _random_expression(rng, depth + 1)
    start, stop, step = rng.choice(["", "1", "-1"]), rng.choice(["", "2", "-2"]), rng.choice(["", "1", "-1", "2"])
    forms = [
        f"{sub}.{rng.choice(_FIELDS)}", f"{sub}[{rng.randint(-3, 3)}]", f"{sub}[*]", f"{sub}[]", f"{sub}.*",
        f"{sub} {rng.choice(OPS)} {other}", f"{sub} || {other}", f"{sub} && {other}", f"!{sub}", f"{sub} | {other}",
        f"{sub}[?{other}]", f"[{sub}, {other}]", f"{{k: {sub}, j: {other}}}", f"({sub})",
        f"{sub}[{start}:{stop}:{step}]",
        f"{rng.choice(FUNCTIONS_1)}({sub})", f"{rng.choice(FUNCTIONS_2)}({sub}, {other})",
        f"{rng.choice(BY[1:])}({sub}, &{other})", f"map(&{sub}, {other})",
    ]  # fmt: skip
    return rng.choice(forms)


def random_cases() -> list[dict[str, Any]]:
    rng = random.Random(15)
    given = {"a": [1, "2", None, True, {"a": 3}], "b": {"a": [{"b": 1}, {"b": "x"}], "1": "one"}, "c": "text",
             "foo": [[1, 2], [3, [4]], "s", None], "0": 0, "a b": [{"c": 1.5}, {"c": -2}]}  # fmt: skip
    structured = sorted({_random_expression(rng) for _ in range(700)})
    garbage = sorted({"".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 8))) for _ in range(900)})
    return [
        _group(given, structured, "random expressions built from the grammar"),
        _group(given, garbage, "random strings over the lexer's alphabet (mostly syntax errors)"),
    ]


FILES = {
    "comparisons": comparisons,
    "slices": slices,
    "functions": functions,
    "texts": texts,
    "random": random_cases,
}


def render(name: str) -> str:
    """The JSON text of one parity file, as written to disk."""
    return json.dumps(FILES[name](), indent=1, ensure_ascii=True) + "\n"


def main() -> None:
    DIR.mkdir(exist_ok=True)
    for name in FILES:
        (DIR / f"{name}.json").write_text(render(name), encoding="utf-8")


if __name__ == "__main__":
    main()
