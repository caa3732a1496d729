"""The tool boundary: registries, sync and async tools, failures as runtime errors, attachments flowing out."""

from __future__ import annotations

import asyncio
import contextvars
import math
import threading
import time
from collections.abc import Collection
from typing import Any

import pytest
from pydantic import BaseModel

from tests.tfl.conftest import IMAGE, error, interpreter, ok, run
from tfrobot.schema.message import FileUserMsgPart, ImageUserMsgPart, TextUserMsgPart, ToolReturn
from tfrobot.tfl import CallableToolRegistry, TFLInterpreter, TFLLimits, TFLToolRegistry, TFLToolSignature, ToolResult


def with_tool(fn: Any, script: str, **limits: Any) -> Any:
    return TFLInterpreter([fn], TFLLimits(**limits)).run(script)


def test_tool_exception_is_a_positioned_runtime_error() -> None:
    result = run('print("start")\nx = broken("disk full")\nprint("never")')
    meta = result.trace_meta
    assert meta is not None
    assert meta["ok"] is False
    assert meta["error"] == {
        "kind": "tool",
        "line": 2,
        "column": 5,
        "message": "tool 'broken' failed: RuntimeError: disk full",
    }
    assert result.result.startswith("start\nTFL tool error at line 2, column 5")
    assert "never" not in result.result
    assert meta["tool_calls"] == 1


def test_tool_error_result_is_a_runtime_error() -> None:
    found = error("x = refusing()")
    assert found["kind"] == "tool"
    assert "quota exceeded" in found["message"]


async def test_async_tools_run_in_the_callers_loop() -> None:
    calls: list[str] = []

    async def remember(item: str) -> int:
        calls.append(item)
        return len(calls)

    result = await TFLInterpreter([remember]).arun('for w in ["a", "b"]:\n    print(remember(w))')
    assert result.result == "1\n2"
    assert calls == ["a", "b"]


async def test_tools_run_on_the_callers_loop_and_thread_with_its_context_while_the_script_does_not() -> None:
    """The script is evaluated on a worker thread; a tool (its client session may live on the caller's
    loop) is marshalled back to that loop, with the caller's context variables."""
    request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id")
    request_id.set("r-7")
    caller = (asyncio.get_running_loop(), threading.current_thread())
    seen: list[tuple[object, ...]] = []

    async def where() -> str:
        seen.append((asyncio.get_running_loop(), threading.current_thread()))
        return request_id.get()

    result = await TFLInterpreter([where]).arun("print(where())")
    assert result.result == "r-7"
    assert seen == [caller]


def test_async_tool_exception() -> None:
    async def explode() -> None:
        raise ValueError("bad input")

    result = with_tool(explode, "explode()")
    assert result.trace_meta["error"]["message"] == "tool 'explode' failed: ValueError: bad input"


def test_blocking_sync_tool_is_cut_off_by_its_time_out() -> None:
    release = threading.Event()

    def block() -> str:
        release.wait(30)
        return "late"

    started = time.monotonic()
    try:
        result = with_tool(block, "block()", tool_timeout_seconds=0.1)
        elapsed = time.monotonic() - started
    finally:
        release.set()  # let the worker thread finish; the run did not wait for it
    assert elapsed < 10
    assert result.trace_meta["error"]["kind"] == "timeout"
    assert "did not answer within 0.1 s" in result.trace_meta["error"]["message"]


@pytest.mark.parametrize(
    ("returned", "printed"),
    [
        ((1, "a", [True, None]), '[1, "a", [true, null]]'),
        ({"nested": {"k": (1.5,)}}, '{"nested": {"k": [1.5]}}'),
        (TextUserMsgPart(text="plain"), "plain"),
        (ToolReturn(call_id="c", result="not json"), "not json"),
        (ToolReturn(call_id="c", result='{"a": [1, 2]}'), '{"a": [1, 2]}'),
        (ToolReturn(call_id="c", result="[1, oops"), "[1, oops"),
        (ToolReturn(call_id="c", result="[NaN, 1]"), "[NaN, 1]"),
        (ToolReturn(call_id="c", result="Infinity"), "Infinity"),
        (ToolReturn(call_id="c", result=" 007 "), " 007 "),
        (ToolResult(value={"n": 1}), '{"n": 1}'),
    ],
)
def test_tool_values_become_tfl_values(returned: object, printed: str) -> None:
    def give() -> object:
        return returned

    assert with_tool(give, "print(give())").result == printed


def test_json_numbers_from_a_tool_return_are_numbers() -> None:
    def count() -> ToolReturn:
        return ToolReturn(call_id="c", result="41")

    def ratio() -> ToolReturn:
        return ToolReturn(call_id="c", result="-0.5e1")

    it = TFLInterpreter([count, ratio])
    assert it.run("print(count() + 1, ratio() * 2)").result == "42 -10.0"


def test_pydantic_models_become_dicts() -> None:
    class Weather(BaseModel):
        city: str
        degrees: float

    def weather(city: str) -> Weather:
        return Weather(city=city, degrees=18.5)

    assert with_tool(weather, 'w = weather("Paris")\nprint(w["city"], w["degrees"])').result == "Paris 18.5"


@pytest.mark.parametrize(
    ("returned", "words"),
    [
        (object(), "cannot hold"),
        ({1, 2}, "cannot hold"),
        ({1: "a"}, "non-string key"),
        (math.nan, "non-finite"),
        (2**70, "overflow"),
        ("x" * 2000, "string limit"),
        (ToolReturn(call_id="c", result="no", is_error=True), "reported an error: no"),
    ],
)
def test_tool_values_tfl_cannot_hold_are_errors(returned: object, words: str) -> None:
    def give() -> object:
        return returned

    result = with_tool(give, "x = give()", max_string_chars=1000)
    assert result.trace_meta["ok"] is False
    assert words in result.trace_meta["error"]["message"]
    assert (result.trace_meta["error"]["line"], result.trace_meta["error"]["column"]) == (1, 5)


def test_huge_tool_collections_are_refused_before_conversion() -> None:
    def flood() -> list[int]:
        return list(range(1_000_000))

    cpu = time.process_time()
    result = with_tool(flood, "x = flood()", max_value_size=1000)
    assert time.process_time() - cpu < 1.0
    assert "returned 1,000,000 items" in result.trace_meta["error"]["message"]


def test_many_threads_running_scripts_at_once() -> None:
    import concurrent.futures

    it = interpreter()

    def one(n: int) -> str:
        return it.run(
            f'for i in range({n}):\n    if i == {n} - 1:\n        print(search(str(i), n=1)[0]["title"])'
        ).result

    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
        outputs = list(pool.map(one, range(1, 31)))
    assert outputs == [f"{n - 1} 0" for n in range(1, 31)]


def test_deeply_nested_tool_value_is_refused() -> None:
    deep: list[object] = []
    for _ in range(300):
        deep = [deep]

    def give() -> object:
        return deep

    result = with_tool(give, "x = give()")
    assert "nested deeper" in result.trace_meta["error"]["message"]


def test_tools_get_fresh_plain_data_and_cannot_change_script_values() -> None:
    seen: list[object] = []

    def mutate(items: list[Any], meta: dict[str, Any]) -> str:
        seen.append((type(items), type(meta), type(items[1])))
        items.append("tampered")
        items[1].append("tampered")
        meta["tampered"] = True
        return "ok"

    result = with_tool(mutate, 'a = [1, [2]]\nm = {"k": 1}\nmutate(a, meta=m)\nprint(a, m)')
    assert result.result == '[1, [2]] {"k": 1}'
    assert seen == [(list, dict, list)]


def test_media_parts_flow_into_console_attachments() -> None:
    script = """
p = photo("cat")
c = chart(title="sales")
print("got", p)
attach(p)
attach(c, [photo("a"), photo("b")])
"""
    result = run(script)
    assert result.trace_meta["ok"] is True
    assert result.result == "got <image: cat>"
    urls = [str(a.url) for a in result.attachments if isinstance(a, ImageUserMsgPart)]
    assert urls == [
        "https://example.com/cat.png",
        str(IMAGE.url),
        "https://example.com/a.png",
        "https://example.com/b.png",
    ]


def test_parts_can_be_passed_to_other_tools() -> None:
    def describe(image: Any) -> str:
        assert isinstance(image, ImageUserMsgPart)
        return f"an image of {image.detail}"

    it = TFLInterpreter(CallableToolRegistry({"photo": lambda name: IMAGE, "describe": describe}))
    assert it.run('print(describe(photo("x")))').result == "an image of a cat"


def test_attachments_of_a_failed_run_are_kept() -> None:
    result = run('attach(photo("a"))\nx = 1 / 0')
    assert result.trace_meta["ok"] is False
    assert len(result.attachments) == 1


def test_a_tool_result_without_attachments_cannot_be_attached() -> None:
    def plain_return() -> ToolReturn:
        return ToolReturn(call_id="c", result="text only")

    result = with_tool(plain_return, "attach(plain_return())")
    assert result.trace_meta["error"]["kind"] == "type"
    assert result.trace_meta["error"]["column"] == 8


def test_tool_result_attachments_may_be_any_part() -> None:
    doc = FileUserMsgPart(url="https://example.com/r.pdf", filename="r.pdf")

    def report() -> ToolResult:
        return ToolResult(value="see attached", attachments=(doc,))

    result = with_tool(report, "r = report()\nprint(r)\nattach(r)")
    assert result.result == "see attached"
    assert result.attachments == [doc]


class DriveLikeRegistry:
    """A registry written against the protocol only, as the Drive adapter will be."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def names(self) -> Collection[str]:
        return ("lookup",)

    def signature(self, name: str) -> TFLToolSignature | None:
        if name != "lookup":
            return None
        return TFLToolSignature(name="lookup", parameters=("key", "default"), required=frozenset({"key"}))

    async def acall(self, name: str, arguments: dict[str, Any]) -> object:
        self.calls.append((name, arguments))
        return ToolReturn(call_id="drive-1", name=name, result='{"value": 42}')


def test_a_protocol_registry_receives_keyword_arguments_only() -> None:
    registry = DriveLikeRegistry()
    assert isinstance(registry, TFLToolRegistry)
    it = TFLInterpreter(registry)
    assert it.run('print(lookup("k", default=0)["value"])').result == "42"
    assert registry.calls == [("lookup", {"key": "k", "default": 0})]
    assert it.validate('lookup(key="k", nope=1)')[0].kind == "argument"


def test_callable_registry_reads_signatures() -> None:
    def tool(a: int, b: str = "x", *, c: bool = False, **rest: Any) -> None:
        """First paragraph.

        Details."""

    registry = CallableToolRegistry({"t": tool})
    sig = registry.signature("t")
    assert sig == TFLToolSignature(
        name="t",
        parameters=("a", "b", "c"),
        required=frozenset({"a"}),
        positional=True,
        any_keyword=True,
        description="First paragraph.",
    )
    assert registry.signature("missing") is None
    assert list(registry.names()) == ["t"]


def test_callable_registry_refusals() -> None:
    def star(*args: Any) -> None: ...

    def posonly(a: int, /) -> None: ...

    def one() -> None: ...

    with pytest.raises(TypeError, match=r"\*args"):
        CallableToolRegistry([star])
    with pytest.raises(TypeError, match="positional-only"):
        CallableToolRegistry([posonly])
    with pytest.raises(ValueError, match="not a TFL name"):
        CallableToolRegistry({"bad-name": one})
    registry = CallableToolRegistry([one])
    with pytest.raises(ValueError, match="already registered"):
        registry.register(one)


def test_registry_failure_inside_acall_is_reported() -> None:
    class Flaky(DriveLikeRegistry):
        async def acall(self, name: str, arguments: dict[str, Any]) -> object:
            raise ConnectionError("drive offline")

    result = TFLInterpreter(Flaky()).run('lookup("k")')
    assert result.trace_meta["error"]["message"] == "tool 'lookup' failed: ConnectionError: drive offline"


def test_tool_calls_are_counted() -> None:
    result = interpreter().run('for i in range(3):\n    search("q", n=1)\nfetch("u")')
    assert result.trace_meta["tool_calls"] == 4
    assert ok("x = 1") == ""
