"""Runaway scripts stop fast with a clear, positioned ConsoleResult: steps, time, memory, output, nesting."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.tfl.conftest import error, ok, run
from tfrobot.tfl import TFLLimits

FAST = 1.0
"""Seconds of CPU a stopped script may cost. CPU time, not wall time: other processes on a loaded
machine stretch wall time, and what must be small is the work this process did before stopping."""
WALL = 5.0
"""A sanity bound on wall time, for the same reason generous."""
LONGEST = 3.0
"""Seconds of CPU the longest allowed script may cost to parse and run: ~0.45 s here, twice that on a busy
shared VM (CI once measured 1.05 s); a cost quadratic in its 20,000 characters would take minutes."""


def stopped(script: str, **limits: Any) -> tuple[dict[str, Any], float]:
    started, cpu = time.monotonic(), time.process_time()
    found = error(script, **limits)
    elapsed, cpu = time.monotonic() - started, time.process_time() - cpu
    assert cpu < FAST, f"used {cpu:.2f}s of CPU"
    assert elapsed < WALL, f"took {elapsed:.2f}s"
    return found, elapsed


NESTED_LOOPS = "n = 0\nfor i in range(10000):\n    for j in range(10000):\n        n = n + 1\n"


def test_endless_nested_loops_hit_the_step_limit() -> None:
    found, _ = stopped(NESTED_LOOPS)
    assert found["kind"] == "limit"
    assert "step limit" in found["message"]
    assert found["line"] in (3, 4)
    result = run(NESTED_LOOPS, max_steps=500)
    assert result.trace_meta is not None
    assert result.trace_meta["steps"] == 501


def test_wall_time_stops_a_script_the_step_limit_would_allow() -> None:
    found, elapsed = stopped(NESTED_LOOPS, max_steps=10**9, max_seconds=0.2)
    assert found["kind"] == "timeout"
    assert "0.2 s" in found["message"]
    assert elapsed >= 0.2


def test_wall_time_covers_tool_calls() -> None:
    found, elapsed = stopped("x = slow(5)", max_seconds=0.2)
    assert found["kind"] == "timeout"
    assert "waiting for tool 'slow'" in found["message"]
    assert (found["line"], found["column"]) == (1, 5)
    assert elapsed < 0.2 + WALL


def test_tool_timeout() -> None:
    found, _ = stopped("x = slow(5)", tool_timeout_seconds=0.1)
    assert found["kind"] == "timeout"
    assert "did not answer within 0.1 s" in found["message"]


def test_string_doubling_is_stopped() -> None:
    found, _ = stopped('s = "x"\nfor i in range(100):\n    s = s + s\n')
    assert found["kind"] == "limit"
    assert "string limit" in found["message"]
    assert (found["line"], found["column"]) == (3, 11)


def test_string_repetition_is_refused_before_it_is_built() -> None:
    found, _ = stopped('s = "abc" * 1000000000000')
    assert found["kind"] == "limit"
    found, _ = stopped("s = [0] * 1000000000000")
    assert "value limit" in found["message"]


def test_quadratic_concatenation_hits_the_allocation_limit() -> None:
    script = 'out = ""\nfor i in range(50000):\n    out = out + "0123456789"\n'
    found, _ = stopped(script)
    assert found["kind"] == "limit"
    assert "memory limit" in found["message"]
    assert "print()" in found["message"]


def test_list_doubling_by_sharing_is_stopped_by_value_size() -> None:
    found, _ = stopped("a = [0]\nfor i in range(200):\n    a = [a, a]\n")
    assert "value limit" in found["message"]
    found, _ = stopped("a = [0]\nfor i in range(200):\n    a = a + a\n")
    assert "value limit" in found["message"]


def test_value_nesting_is_bounded() -> None:
    found, _ = stopped("a = 1\nfor i in range(1000):\n    a = [a]\n")
    assert "nesting limit" in found["message"]
    found, _ = stopped('a = 1\nfor i in range(1000):\n    a = {"k": a}\n')
    assert "nesting limit" in found["message"]


def test_deep_expression_nesting_is_refused_before_running() -> None:
    for script in ("x = " + "[" * 500 + "]" * 500, "x = " + "-" * 2000 + "1", "x = " + "f(" * 300 + ")" * 300):
        found, _ = stopped(script)
        assert found["kind"] == "limit"
        assert "nesting limit" in found["message"]
        assert found["line"] == 1
        assert found["column"] > 4


def test_deep_block_nesting_is_refused() -> None:
    script = "".join("    " * i + "if true:\n" for i in range(80)) + "    " * 80 + "pass\n"
    found, _ = stopped(script)
    assert found["kind"] == "limit"
    assert found["line"] > 1


def test_integers_are_64_bit() -> None:
    found, _ = stopped("x = 3\nfor i in range(100):\n    x = x * x\n")
    assert found["kind"] == "value"
    assert "overflow" in found["message"]
    assert ok("print(9223372036854775807)") == "9223372036854775807"
    assert error("x = 9223372036854775807 + 1")["kind"] == "value"
    assert error("x = -9223372036854775807 - 2")["kind"] == "value"


def test_float_overflow_is_an_error() -> None:
    found, _ = stopped("x = 1e300\nfor i in range(10):\n    x = x * 1e300\n")
    assert "finite" in found["message"]


def test_huge_print_output_is_cut_at_the_limit() -> None:
    script = 'for i in range(1000):\n    for j in range(1000):\n        print("spam spam spam spam spam")\n'
    cpu = time.process_time()
    result = run(script, max_output_chars=10_000)
    assert time.process_time() - cpu < FAST
    meta = result.trace_meta
    assert meta is not None
    assert meta["ok"] is False
    assert meta["output_chars"] == 10_000
    assert isinstance(meta["error"], dict)
    assert "output limit" in str(meta["error"]["message"])
    assert result.result.startswith("spam spam")
    assert "TFL limit error at line 3" in result.result
    assert len(result.summary_result or "") < 2200


def test_one_print_of_a_huge_value_is_cut_without_rendering_it_all() -> None:
    script = 'a = ["xxxxxxxxxx"]\nfor i in range(16):\n    a = a + a\nprint(a)\n'
    result = run(script, max_output_chars=1000)
    meta = result.trace_meta
    assert meta is not None
    assert meta["ok"] is False
    assert "output limit" in str(meta["error"])
    assert meta["output_chars"] == 1000
    assert result.result.startswith('["xxxxxxxxxx", "xxxxxxxxxx"')


def test_str_of_a_huge_value_is_bounded_by_the_string_limit() -> None:
    found, _ = stopped("a = range(50000)\ns = str(a) + str(a)\n", max_string_chars=1000)
    assert found["kind"] == "limit"


def test_range_is_bounded() -> None:
    found, _ = stopped("for i in range(1000000000000):\n    pass\n")
    assert "value limit" in found["message"]


def test_attachment_limit() -> None:
    found, _ = stopped('for i in range(5):\n    attach(photo("p"))\n', max_attachments=3)
    assert "attachment limit" in found["message"]
    assert found["line"] == 2


def test_script_length_limit() -> None:
    found = error("x = 1\n" * 100, max_script_chars=50)
    assert found["kind"] == "limit"
    assert "script limit" in found["message"]


@pytest.mark.parametrize("script", ["x = 1", "print(1)\n" * 3])
def test_limits_do_not_get_in_the_way_of_normal_scripts(script: str) -> None:
    assert error is not None
    result = run(script, max_steps=50, max_seconds=1.0, max_output_chars=100)
    assert result.trace_meta is not None
    assert result.trace_meta["ok"] is True


def test_the_deepest_allowed_nesting_runs_without_exhausting_pythons_stack() -> None:
    depth = 190  # under the largest max_depth (200): every recursive walk must cope
    expression = "[" * depth + "1" + "]" * depth
    script = f"x = {expression}\ny = everything(v=x)\nprint(len(str(y)), x == {expression})\n" + "-" * depth + "1"
    result = run(script, max_depth=200)
    assert result.trace_meta is not None
    assert result.trace_meta["ok"] is True, result.result
    rendered = len('{"v": ') + depth + len("1") + depth + len("}")
    assert result.result == f"{rendered} true\n1"  # an even number of minus signs
    blocks = "".join(" " * level + "if true:\n" for level in range(depth - 2)) + " " * (depth - 2) + "print(1)\n"
    nested = run(blocks, max_depth=200)
    assert nested.trace_meta is not None
    assert nested.trace_meta["ok"] is True, nested.result
    assert nested.result == "1"


@pytest.mark.parametrize(
    "script",
    [
        "x = 1\n" * 3_300,
        "x = [" + "1," * 9_900 + "]",
        "x = " + "(" * 9_990 + "1" + ")" * 9_990,
        "x = " + "-" * 19_990 + "1",
        '"""' + "a" * 19_990,
    ],
)
def test_the_longest_allowed_script_is_handled_quickly(script: str) -> None:
    assert len(script) <= TFLLimits().max_script_chars
    cpu = time.process_time()
    result = run(script)
    assert time.process_time() - cpu < LONGEST
    assert result.trace_meta is not None
