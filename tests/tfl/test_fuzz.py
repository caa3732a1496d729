"""Property tests: whatever the text, `run` returns a ConsoleResult within the limits and never raises.

An `internal` error is a bug by definition (the interpreter reporting its own exception), so these
properties also assert that random programs only ever fail with script-level error kinds.
"""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.tfl.conftest import registry
from tfrobot.schema.message import ConsoleResult
from tfrobot.tfl import TFLInterpreter, TFLLimits, parse

LIMITS = TFLLimits(
    max_steps=3_000,
    max_seconds=0.5,
    tool_timeout_seconds=0.05,
    max_output_chars=2_000,
    max_string_chars=5_000,
    max_value_size=2_000,
    max_allocation=50_000,
    max_attachments=3,
    summary_chars=200,
)
INTERPRETER = TFLInterpreter(registry(), LIMITS)
INTERPRETER.validate("x = 1")  # build the parser tables now, not inside the first timed example
WALL_SLACK = 5.0  # a loaded CI machine stalls processes for seconds; a broken time limit overshoots forever
# Coverage tracing (`make test`) makes every step about twice as slow, so the work between two clock checks and
# the result after the limit cost more CPU (1.04 s seen at a 1.0 s bound); a broken limit overshoots forever.
CPU_SLACK = 2.0
SCRIPT_KINDS = {"syntax", "name", "argument", "type", "value", "index", "tool", "timeout", "limit"}

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(script: str) -> ConsoleResult:
    started, cpu = time.monotonic(), time.process_time()
    result = INTERPRETER.run(script)
    elapsed, cpu = time.monotonic() - started, time.process_time() - cpu
    assert isinstance(result, ConsoleResult)
    assert cpu < LIMITS.max_seconds + CPU_SLACK, f"used {cpu:.2f}s of CPU"
    assert elapsed < LIMITS.max_seconds + WALL_SLACK, f"took {elapsed:.2f}s"
    meta = result.trace_meta
    assert meta is not None
    assert isinstance(meta["ok"], bool)
    assert isinstance(meta["steps"], int)
    assert meta["steps"] <= LIMITS.max_steps + 1
    assert isinstance(meta["output_chars"], int)
    assert meta["output_chars"] <= LIMITS.max_output_chars
    assert len(result.attachments) <= LIMITS.max_attachments
    assert result.summary_result is not None
    assert len(result.summary_result) <= LIMITS.summary_chars + 60
    assert result.script == script
    if not meta["ok"]:
        error = meta["error"]
        assert isinstance(error, dict)
        assert error["kind"] in SCRIPT_KINDS, result.result
        assert isinstance(error["line"], int)
        assert 0 <= error["line"] <= script.count("\n") + 2
    return result


@FUZZ
@given(st.text(max_size=200))
def test_any_text(script: str) -> None:
    check(script)


TOKENS = [
    "x",
    "y",
    "d",
    "s",
    "i",
    "search",
    "fetch",
    "photo",
    "chart",
    "broken",
    "slow",
    "print",
    "attach",
    "len",
    "str",
    "int",
    "float",
    "range",
    "keys",
    "items",
    "values",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "=",
    "==",
    "!=",
    "<",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "and",
    "or",
    "not",
    "in",
    "if",
    "elif",
    "else",
    "for",
    "pass",
    "true",
    "false",
    "null",
    "0",
    "1",
    "2",
    "-1",
    "3.5",
    '"a"',
    "'b'",
    '"""c"""',
    "#c",
    "\n",
    "\n    ",
    ".",
    "n=",
    "q=",
    "query=",
    "name=",
    "title=",
]


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join))
def test_token_soup(script: str) -> None:
    check(script)


NAMES = st.sampled_from(["x", "y", "s", "d"])


def exprs() -> st.SearchStrategy[str]:
    leaves = st.one_of(
        NAMES,
        st.integers(-5, 10).map(str),
        st.sampled_from(["1.5", "true", "false", "null", '"ab"', '""', "[]", "{}", '{"k": 1}', "[1, 2, 3]"]),
    )

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", "==", "<", "in", "and", "or"]), inner)
        return st.one_of(
            binary.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            inner.map(lambda e: f"(not {e})"),
            inner.map(lambda e: f"(-{e})"),
            st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            inner.map(lambda e: '{"k": ' + e + "}"),
            st.tuples(st.sampled_from(["len", "str", "int", "float", "range", "keys", "print"]), inner).map(
                lambda t: f"{t[0]}({t[1]})"
            ),
            inner.map(lambda e: f"search({e}, n=2)"),
            inner.map(lambda e: f"photo(name={e})"),
            inner.map(lambda e: f"attach({e})"),
        )

    return st.recursive(leaves, extend, max_leaves=8)


EXPRS = exprs()


def statements(depth: int) -> st.SearchStrategy[list[str]]:
    pad = "    " * depth
    simple = st.one_of(
        st.tuples(NAMES, EXPRS).map(lambda t: [f"{pad}{t[0]} = {t[1]}"]),
        EXPRS.map(lambda e: [f"{pad}print({e})"]),
        st.tuples(NAMES, EXPRS, EXPRS).map(lambda t: [f"{pad}{t[0]}[{t[1]}] = {t[2]}"]),
        EXPRS.map(lambda e: [f"{pad}{e}"]),
    )
    if depth >= 2:
        return simple
    body = st.lists(statements(depth + 1), min_size=1, max_size=3).map(lambda blocks: [s for b in blocks for s in b])
    compound = st.one_of(
        st.tuples(EXPRS, body, body).map(lambda t: [f"{pad}if {t[0]}:", *t[1], f"{pad}else:", *t[2]]),
        st.tuples(NAMES, EXPRS, body).map(lambda t: [f"{pad}for {t[0]} in {t[1]}:", *t[2]]),
    )
    return st.one_of(simple, compound)


STATEMENTS = statements(0)
PROGRAMS = st.lists(STATEMENTS, min_size=1, max_size=4).map(
    lambda blocks: 'x = 1\ny = [1, 2]\ns = "str"\nd = {"k": [1]}\n' + "\n".join(s for b in blocks for s in b)
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROGRAMS)
def test_generated_programs_parse_and_run_within_limits(script: str) -> None:
    parse(script)  # the generator writes valid syntax: any error must come from running it
    result = check(script)
    meta = result.trace_meta
    assert meta is not None
    if not meta["ok"]:
        assert isinstance(meta["error"], dict)
        assert meta["error"]["kind"] != "syntax", result.result


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 400), st.sampled_from(["(", "[", "-", "not ", "f(", '{"k": ']))
def test_nesting_of_any_depth_is_refused_or_run(depth: int, opener: str) -> None:
    closer = {"(": ")", "[": "]", "-": "", "not ": "", "f(": ")", '{"k": ': "}"}[opener]
    check("x = " + opener * depth + "1" + closer * depth)
