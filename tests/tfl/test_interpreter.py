"""`interpreter.py`, the facade: tool registration, `arun`/`run`/`aexecute`, and parsing once."""

from __future__ import annotations

import asyncio

import pytest

from tests.tfl.conftest import interpreter
from tfrobot.schema.message import BaseMessage, ConsoleResult
from tfrobot.tfl import BUILTINS, TFLInterpreter, TFLLimits
from tfrobot.tfl.interpreter import _parsed


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
