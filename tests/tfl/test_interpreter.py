"""Semantics of every construct, runtime errors with positions, and the ConsoleResult contract."""

from __future__ import annotations

import asyncio

import pytest

from tests.tfl.conftest import error, interpreter, ok, run
from tfrobot.schema.message import BaseMessage, ConsoleResult, LLMTFLMessage
from tfrobot.tfl import BUILTINS, TFLInterpreter, TFLLimits
from tfrobot.tfl.interpreter import _parsed


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


def test_success_console_result_contract() -> None:
    script = 'print("hi")\nprint(len(search("q")))'
    result = run(script)
    assert type(result) is ConsoleResult
    assert result.result == "hi\n3"
    assert result.summary_result == "hi\n3"
    assert result.script == script
    assert result.attachments == []
    meta = result.trace_meta
    assert meta is not None
    assert meta["ok"] is True
    assert meta["tool_calls"] == 1
    assert isinstance(meta["steps"], int)
    assert meta["steps"] > 5
    assert isinstance(meta["duration_ms"], float)
    assert "error" not in meta


def test_error_console_result_contract() -> None:
    script = 'print("before")\nx = [1, 2]\ny = x[5]\nprint("after")'
    result = run(script)
    assert result.result == (
        "before\n"
        "TFL index error at line 3, column 7: index 5 is out of range for a list of 2 items\n"
        "3 | y = x[5]\n"
        "  |       ^"
    )
    meta = result.trace_meta
    assert meta is not None
    assert meta["ok"] is False
    assert meta["error"] == {
        "kind": "index",
        "line": 3,
        "column": 7,
        "message": "index 5 is out of range for a list of 2 items",
    }
    assert isinstance(meta["steps"], int)
    assert isinstance(meta["duration_ms"], float)


async def test_aexecute_wraps_a_turns_scripts_as_one_console_message() -> None:
    message = await interpreter().aexecute(["x = 1\nprint(x)", "print(x)"], conversation_id="conv-1")
    assert type(message) is BaseMessage
    assert message.role == "console"
    assert message.conversation_id == "conv-1"
    first, second = message.console_reses or ()
    assert isinstance(first, ConsoleResult)
    assert isinstance(second, ConsoleResult)
    assert first.result == "1"
    assert second.trace_meta is not None
    assert second.trace_meta["ok"] is False  # scripts do not share variables
    restored = BaseMessage.model_validate_json(message.model_dump_json())
    assert [type(r) for r in restored.console_reses or ()] == [ConsoleResult, ConsoleResult]


def test_console_result_travels_as_a_console_message() -> None:
    result = run('attach(photo("cat"))\nprint("done")')
    message = BaseMessage(role="console", console_reses=[result])
    restored = BaseMessage.model_validate_json(message.model_dump_json())
    converted = restored.to_llm_request()
    assert isinstance(converted, list)
    assert isinstance(converted[0], LLMTFLMessage)
    assert converted[0].content == "done"
    assert len(converted) == 2  # the attachment rides in a user message after the console text


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
    from tfrobot.tfl import CallableToolRegistry

    def lookup(key: str) -> str:
        return key

    it = TFLInterpreter(CallableToolRegistry([lookup], positional=False))
    assert "keyword arguments only" in it.validate('lookup("k")')[0].message
    assert it.validate('lookup(key="k")') == []


def test_summary_result_is_short_and_keeps_both_ends() -> None:
    result = run('for i in range(300):\n    print("line", i)', summary_chars=200)
    assert len(result.result) > 2000
    summary = result.summary_result
    assert summary is not None
    assert len(summary) < 260
    assert summary.startswith("line 0\n")
    assert summary.endswith("line 299")
    assert "characters omitted" in summary


def test_summary_of_a_failed_long_run_keeps_the_whole_error() -> None:
    result = run('for i in range(500):\n    print("line", i)\nx = 1 / 0', summary_chars=200)
    summary = result.summary_result
    assert summary is not None
    assert len(summary) <= 200
    assert summary.startswith("line 0\n")
    assert "characters omitted" in summary
    assert summary.endswith("TFL value error at line 3, column 7: division by zero\n3 | x = 1 / 0\n  |       ^")
    assert result.result.endswith(summary.rsplit("line 499\n", 1)[1])


def test_tool_names_may_not_shadow_builtins() -> None:
    def len(x: str) -> int:
        return 0

    with pytest.raises(ValueError, match="shadow TFL builtins"):
        TFLInterpreter([len])
    assert set(BUILTINS) >= {"print", "attach", "len", "range"}


@pytest.mark.parametrize("name", ["if", "true", "None", "not", "import", "is", "eval"])
def test_tool_names_must_be_callable_from_a_script(name: str) -> None:
    with pytest.raises(ValueError, match="no script could call them"):
        TFLInterpreter({name: lambda: 1})


async def test_arun_in_the_event_loop_and_run_from_inside_a_loop() -> None:
    it = interpreter()
    result = await it.arun('print(fetch("x"))')
    assert result.result == "<html>x</html>"
    # a sync caller inside a running loop: run() must not try to nest loops
    result = it.run("print(1)")
    assert result.result == "1"
    results = await asyncio.gather(*(it.arun(f"print({i})") for i in range(5)))
    assert [r.result for r in results] == [str(i) for i in range(5)]


def test_interpreter_defaults_and_mapping_of_tools() -> None:
    assert TFLInterpreter().run("print(1)").result == "1"
    assert TFLInterpreter({"ask": lambda q: q + "?"}).run('ask("why")').result == "why?"
    assert TFLInterpreter().limits == TFLLimits()


def test_a_script_validated_then_run_is_parsed_once() -> None:
    """A planner validates a script and then runs it (`DCChains`): the second step reuses the first's tree."""
    script = 'x = 41 + 1\nprint("once", x)'
    interp = TFLInterpreter()
    before = _parsed.cache_info()
    assert interp.validate(script) == []
    assert interp.run(script).result == "once 42"
    after = _parsed.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 1)
