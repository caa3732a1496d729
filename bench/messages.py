"""JSON round trip of one agent conversation: TFRobot vs. pydantic-ai vs. LangChain vs. a hand-written ceiling.

What is measured
----------------
One N-turn conversation is built once per library. Each turn is five *logical messages*:

1. the user's message (a `TextMessage`; every 10th turn a `MultiPartMessage` with a text part and an
   inline PNG);
2. - 4. the turn's inner messages, which TFRobot stores inside the user message's `intermediate_trace`:
   an assistant message with reasoning text and two parallel tool calls, a tool message with the two
   results, and a console message with one TFL `ConsoleResult`;
5. the assistant's final text reply (top level).

So every library carries ``5 * N`` messages, counted the same way (top level + trace records); the
per-message column divides by that number. The libraries express the same content in their own types:

* **tfrobot** - `TypeAdapter(list[Message])` from `tfrobot.schema.message` (``dump_json`` / ``validate_json``);
  records are nested in each user message's trace, exactly as TFRobot persists a turn.
* **pydantic-ai** - a flat list of `ModelRequest` / `ModelResponse` (`UserPromptPart` with `BinaryContent`,
  `ThinkingPart`, 2 `ToolCallPart`, 2 `ToolReturnPart`, `TextPart`; it has no console role, so the console
  output travels as a `UserPromptPart`), through `ModelMessagesTypeAdapter`.
* **langchain** - `HumanMessage`, `AIMessage` (tool calls, reasoning in `additional_kwargs`), `ToolMessage`
  (one per result, so the tool message is two objects), `ChatMessage(role="console")`, through
  ``messages_to_dict`` -> ``json.dumps`` -> bytes -> ``json.loads`` -> ``messages_from_dict``.
* **ceiling** - a plain Pydantic family of the same shape written by hand: the same fields and types, the
  trace as a nested list of messages, and the seed's callable ``Discriminator`` over ``Tag()``-ged
  branches (``role:msg_type``, ``DEFAULT_TAG`` fallback), with one ``TypeAdapter(list[CeilingMessage])``.
  No registry, no late-registration branch, no ``extra="allow"``, no validators: what Pydantic alone costs.

A round trip is ``dump`` to JSON bytes followed by ``validate`` back. After the warm-up round trip of every
size, each restored message's ``type()`` is compared with the original's (trace records and pydantic-ai
parts included); a mismatch aborts the run. The check is not inside the timed region.

How it is timed
---------------
``time.perf_counter`` around dump and around load, garbage collector disabled while timing, the libraries
interleaved repeat by repeat (so drift hits all of them alike), objects freed outside the timed region.
The tables print medians ("best" is the fastest repeat; "cpu" is the median process CPU time of the round
trip, which other processes on a shared machine inflate far less than wall time). "x ceiling" is the
median over repeats of the library's round trip divided by the ceiling's *in the same repeat* (paired, so
load from other processes cancels out): 1.00 is as fast as plain Pydantic goes with this shape, lower is
better. "Faster than both peers" uses the same paired medians. Cost is linear in N when the per-message
time stays flat across N: the linearity table uses CPU time, and "scaling" is its value at the largest N
over the smallest (1.00 is perfectly linear).
Peak memory is the `tracemalloc` peak of one round trip of the largest N above what was allocated before
(Python-heap allocations only: Rust-side buffers of pydantic-core are not seen). Import time is the
``-X importtime`` cumulative time of ``tfrobot.schema.message`` in a fresh interpreter, median of 5 (pydantic
itself included, since the package is what imports it).

Targets (the issue): tfrobot within 1.3x of the ceiling at every N, faster than both peers, import < 150 ms.
"""

from __future__ import annotations

import argparse
import base64
import gc
import json
import platform
import statistics
import struct
import subprocess
import sys
import time
import tracemalloc
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Generic, Literal, TypeAlias, TypeVar

import langchain_core
import pydantic
import pydantic_ai
from langchain_core.messages import (
    AIMessage,
    ChatMessage,
    HumanMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)
from langchain_core.messages import BaseMessage as LCMessage
from pydantic import AnyUrl, BaseModel, ConfigDict, Discriminator, Field, Tag, TypeAdapter
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    ConsoleResult,
    ImageUserMsgPart,
    Message,
    MultiPartMessage,
    TextMessage,
    TextUserMsgPart,
    ToolCall,
    ToolReturn,
    UserMessage,
)
from tfrobot.schema.message.base import new_msg_id, now_ms
from tfrobot.schema.types import AttributeValue
from tfrobot.schema.users import BaseGroup

SIZES: tuple[int, ...] = (20, 200, 2000)
MESSAGES_PER_TURN = 5
TARGET_RATIO = 1.3
TARGET_IMPORT_MS = 150.0


def _png(width: int = 8, height: int = 8) -> bytes:
    """A valid RGBA PNG of a flat colour (the inline image of every 10th turn)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\x20\x80\xc0\xff" * width for _ in range(height))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


PNG = _png()


# --- The shared script of one turn ---------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """The content of turn `i`, identical for every library."""

    i: int

    @property
    def has_image(self) -> bool:
        return self.i % 10 == 9

    @property
    def question(self) -> str:
        return f"Turn {self.i}: what is the weather in Paris and in Berlin right now?"

    reasoning = "The user asks about two cities; call the weather tool for both in parallel, then summarise."

    def call_id(self, k: int) -> str:
        return f"call_{self.i}_{k}"

    cities = ("Paris", "Berlin")

    def arguments(self, k: int) -> str:
        return json.dumps({"city": self.cities[k], "unit": "celsius"})

    def tool_result(self, k: int) -> str:
        return json.dumps({"city": self.cities[k], "temp_c": 18 - 6 * k, "sky": ("cloudy", "rain")[k]})

    script = 'weather = ctx.tool_results()\nprint(format_table(weather, cols=["city", "temp_c", "sky"]))'
    console_output = "city   | temp_c | sky\nParis  | 18     | cloudy\nBerlin | 12     | rain"
    reply = "Paris is at 18 C and cloudy; Berlin is at 12 C with rain. Take an umbrella in Berlin."


# --- (a) TFRobot ----------------------------------------------------------------------------------------

TFROBOT_ADAPTER: TypeAdapter[list[BaseMessage]] = TypeAdapter(list[Message])


def build_tfrobot(n: int) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for turn in map(Turn, range(n)):
        user: UserMessage
        if turn.has_image:
            user = MultiPartMessage(
                content=[TextUserMsgPart(text=turn.question), ImageUserMsgPart(data=PNG, media_type="image/png")]
            )
        else:
            user = TextMessage(content=turn.question)
        user.intermediate_trace.append(
            AssistantTextMessage(
                reasoning_content=turn.reasoning,
                tool_calls=[ToolCall(id=turn.call_id(k), name="weather", arguments=turn.arguments(k)) for k in (0, 1)],
            )
        )
        user.intermediate_trace.append(
            BaseMessage(
                role="tool",
                tool_reses=[
                    ToolReturn(call_id=turn.call_id(k), name="weather", result=turn.tool_result(k)) for k in (0, 1)
                ],
            )
        )
        user.intermediate_trace.append(
            BaseMessage(role="console", console_reses=[ConsoleResult(result=turn.console_output, script=turn.script)])
        )
        out.extend((user, AssistantTextMessage(content=turn.reply)))
    return out


def check_tfrobot(original: list[BaseMessage], restored: list[BaseMessage]) -> None:
    _same_length(original, restored)
    for before, after in zip(original, restored, strict=True):
        _same_type(before, after)
        if isinstance(before, UserMessage) and isinstance(after, UserMessage):
            records = before.intermediate_trace.records, after.intermediate_trace.records
            _same_length(*records)
            for inner_before, inner_after in zip(*records, strict=True):
                _same_type(inner_before, inner_after)


def count_tfrobot(messages: list[BaseMessage]) -> int:
    return sum(1 + len(m.intermediate_trace.records) if isinstance(m, UserMessage) else 1 for m in messages)


# --- (b) pydantic-ai ------------------------------------------------------------------------------------


def build_pydantic_ai(n: int) -> list[ModelMessage]:
    out: list[ModelMessage] = []
    for turn in map(Turn, range(n)):
        prompt: UserPromptPart = (
            UserPromptPart(content=[turn.question, BinaryContent(data=PNG, media_type="image/png")])
            if turn.has_image
            else UserPromptPart(content=turn.question)
        )
        out.append(ModelRequest(parts=[prompt]))
        out.append(
            ModelResponse(
                parts=[
                    ThinkingPart(content=turn.reasoning),
                    *(ToolCallPart("weather", turn.arguments(k), turn.call_id(k)) for k in (0, 1)),
                ]
            )
        )
        out.append(
            ModelRequest(parts=[ToolReturnPart("weather", turn.tool_result(k), turn.call_id(k)) for k in (0, 1)])
        )
        out.append(ModelRequest(parts=[UserPromptPart(content=turn.console_output)]))
        out.append(ModelResponse(parts=[TextPart(content=turn.reply)]))
    return out


def check_pydantic_ai(original: list[ModelMessage], restored: list[ModelMessage]) -> None:
    _same_length(original, restored)
    for before, after in zip(original, restored, strict=True):
        _same_type(before, after)
        _same_length(before.parts, after.parts)
        for part_before, part_after in zip(before.parts, after.parts, strict=True):
            _same_type(part_before, part_after)


# --- (c) LangChain --------------------------------------------------------------------------------------


def build_langchain(n: int) -> list[LCMessage]:
    out: list[LCMessage] = []
    for turn in map(Turn, range(n)):
        if turn.has_image:
            image_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
            content: list[str | dict[str, Any]] = [
                {"type": "text", "text": turn.question},
                {"type": "image_url", "image_url": {"url": image_url}},
            ]
            out.append(HumanMessage(content=content))
        else:
            out.append(HumanMessage(content=turn.question))
        out.append(
            AIMessage(
                content="",
                additional_kwargs={"reasoning_content": turn.reasoning},
                tool_calls=[
                    {
                        "name": "weather",
                        "args": json.loads(turn.arguments(k)),
                        "id": turn.call_id(k),
                        "type": "tool_call",
                    }
                    for k in (0, 1)
                ],
            )
        )
        out.extend(
            ToolMessage(content=turn.tool_result(k), tool_call_id=turn.call_id(k), name="weather") for k in (0, 1)
        )
        out.append(ChatMessage(role="console", content=turn.console_output))
        out.append(AIMessage(content=turn.reply))
    return out


def langchain_dump(messages: list[LCMessage]) -> bytes:
    return json.dumps(messages_to_dict(messages)).encode()


def langchain_load(blob: bytes) -> list[LCMessage]:
    return messages_from_dict(json.loads(blob))


def check_langchain(original: list[LCMessage], restored: list[LCMessage]) -> None:
    _same_length(original, restored)
    for before, after in zip(original, restored, strict=True):
        _same_type(before, after)


# --- (d) The ceiling: the seed's design, written by hand --------------------------------------------------

CEILING_DEFAULT_TAG = "default"


class CeilingUser(BaseModel):
    uid: str
    name: str | None = None
    meta: dict[str, AttributeValue] = Field(default_factory=dict)


class CeilingTextPart(BaseModel):
    type: Literal["text"] = "text"
    text: str


class CeilingImagePart(BaseModel):
    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    type: Literal["image"] = "image"
    url: AnyUrl | None = None
    path: Path | None = None
    data: bytes | None = None
    media_type: str | None = None
    detail: str = ""


CeilingPart: TypeAlias = Annotated[CeilingTextPart | CeilingImagePart, Field(discriminator="type")]


class CeilingToolCall(BaseModel):
    id: str
    name: str
    arguments: str = "{}"
    type: Literal["function"] = "function"


class CeilingToolReturn(BaseModel):
    call_id: str
    name: str | None = None
    result: str = ""
    attachments: list[CeilingPart] = Field(default_factory=list)
    is_error: bool = False


class CeilingConsoleResult(BaseModel):
    result: str = ""
    summary_result: str | None = None
    attachments: list[CeilingPart] = Field(default_factory=list)
    script: str | None = None
    trace_meta: dict[str, AttributeValue] | None = None


class CeilingFunctionCall(BaseModel):
    name: str
    arguments: str = "{}"


class CeilingFunctionReturn(BaseModel):
    name: str
    result: str = ""


class CeilingReasoningBlock(BaseModel):
    type: Literal["thinking", "redacted_thinking"] = "thinking"
    text: str = ""
    signature: str | None = None
    data: str | None = None
    provider: str | None = None


class CeilingUsage(BaseModel):
    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    raw: dict[str, AttributeValue] = Field(default_factory=dict)


class CeilingBaseMessage(BaseModel):
    """The seed's `BaseMessage` fields and types, nothing else."""

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    role: Literal["system", "user", "assistant", "function", "tool", "console"]
    content: (
        str | Path | AnyUrl | CeilingUser | CeilingPart | Sequence[CeilingBaseMessage] | Sequence[CeilingPart] | None
    ) = None
    tool_calls: list[CeilingToolCall] | None = None
    tool_reses: Sequence[str | CeilingToolReturn] | None = None
    function_call: CeilingFunctionCall | None = None
    function_res: CeilingFunctionReturn | None = None
    console_reses: Sequence[str | CeilingConsoleResult] | None = None
    tfl_scripts: list[str] | None = None
    additional_kwargs: dict[str, AttributeValue] = Field(default_factory=dict)
    create_ts: int = Field(default_factory=now_ms)
    creator: CeilingUser | None = None
    group: BaseGroup | None = None
    msg_id: str = Field(default_factory=new_msg_id)
    conversation_id: str | None = None


class CeilingTrace(BaseModel):
    records: list[CeilingMessage] = Field(default_factory=list)


class CeilingUserMessage(CeilingBaseMessage):
    role: Literal["user"] = "user"
    intermediate_trace: CeilingTrace = Field(default_factory=CeilingTrace)


class CeilingTextMessage(CeilingUserMessage):
    msg_type: Literal["text"] = "text"
    content: str


class CeilingMultiPartMessage(CeilingUserMessage):
    msg_type: Literal["multipart"] = "multipart"
    content: list[CeilingPart]


class CeilingAssistantTextMessage(CeilingBaseMessage):
    role: Literal["assistant"] = "assistant"
    msg_type: Literal["text"] = "text"
    content: str = ""
    reasoning_content: str | None = None
    reasoning_blocks: list[CeilingReasoningBlock] = Field(default_factory=list)
    finish_reason: str | None = None
    usage: CeilingUsage | None = None
    model: str | None = None


def seed_discriminator(v: Any) -> str:
    """The seed's `get_discriminator_value`, verbatim in behaviour."""
    if isinstance(v, dict):
        role = v.get("role")
        if "msg_type" not in v:
            return CEILING_DEFAULT_TAG
        msg_type = v.get("msg_type")
    else:
        role = v.role
        if not hasattr(v, "msg_type"):
            return CEILING_DEFAULT_TAG
        msg_type = v.msg_type
    return f"{role}:{msg_type}" if role in ("user", "assistant") else CEILING_DEFAULT_TAG


CeilingMessage: TypeAlias = Annotated[
    Annotated[CeilingTextMessage, Tag("user:text")]
    | Annotated[CeilingMultiPartMessage, Tag("user:multipart")]
    | Annotated[CeilingAssistantTextMessage, Tag("assistant:text")]
    | Annotated[CeilingBaseMessage, Tag(CEILING_DEFAULT_TAG)],
    Discriminator(seed_discriminator),
]

for _model in (CeilingBaseMessage, CeilingTrace, CeilingUserMessage, CeilingTextMessage, CeilingMultiPartMessage):
    _model.model_rebuild()
CEILING_ADAPTER: TypeAdapter[list[CeilingBaseMessage]] = TypeAdapter(list[CeilingMessage])


def build_ceiling(n: int) -> list[CeilingBaseMessage]:
    out: list[CeilingBaseMessage] = []
    for turn in map(Turn, range(n)):
        user: CeilingUserMessage
        if turn.has_image:
            user = CeilingMultiPartMessage(
                content=[CeilingTextPart(text=turn.question), CeilingImagePart(data=PNG, media_type="image/png")]
            )
        else:
            user = CeilingTextMessage(content=turn.question)
        records = user.intermediate_trace.records
        records.append(
            CeilingAssistantTextMessage(
                reasoning_content=turn.reasoning,
                tool_calls=[
                    CeilingToolCall(id=turn.call_id(k), name="weather", arguments=turn.arguments(k)) for k in (0, 1)
                ],
            )
        )
        records.append(
            CeilingBaseMessage(
                role="tool",
                tool_reses=[
                    CeilingToolReturn(call_id=turn.call_id(k), name="weather", result=turn.tool_result(k))
                    for k in (0, 1)
                ],
            )
        )
        records.append(
            CeilingBaseMessage(
                role="console", console_reses=[CeilingConsoleResult(result=turn.console_output, script=turn.script)]
            )
        )
        for seq, record in enumerate(records):  # the same `__trace_meta` mark TFRobot's trace adds
            record.additional_kwargs["__trace_meta"] = {"seq": seq}
        out.extend((user, CeilingAssistantTextMessage(content=turn.reply)))
    return out


def check_ceiling(original: list[CeilingBaseMessage], restored: list[CeilingBaseMessage]) -> None:
    _same_length(original, restored)
    for before, after in zip(original, restored, strict=True):
        _same_type(before, after)
        if isinstance(before, CeilingUserMessage) and isinstance(after, CeilingUserMessage):
            records = before.intermediate_trace.records, after.intermediate_trace.records
            _same_length(*records)
            for inner_before, inner_after in zip(*records, strict=True):
                _same_type(inner_before, inner_after)


# --- Harness -------------------------------------------------------------------------------------------


def _same_type(before: object, after: object) -> None:
    if type(before) is not type(after):
        raise SystemExit(f"type lost in the round trip: {type(before).__name__} came back as {type(after).__name__}")


def _same_length(before: Sequence[object], after: Sequence[object]) -> None:
    if len(before) != len(after):
        raise SystemExit(f"round trip changed the number of items: {len(before)} -> {len(after)}")


T = TypeVar("T")


@dataclass(frozen=True)
class Case(Generic[T]):
    """One library's way to build, dump, load and check the conversation."""

    name: str
    build: Callable[[int], list[T]]
    dump: Callable[[list[T]], bytes]
    load: Callable[[bytes], list[T]]
    check: Callable[[list[T], list[T]], None]


CASES: tuple[Case[Any], ...] = (
    Case("tfrobot", build_tfrobot, TFROBOT_ADAPTER.dump_json, TFROBOT_ADAPTER.validate_json, check_tfrobot),
    Case(
        "pydantic-ai",
        build_pydantic_ai,
        ModelMessagesTypeAdapter.dump_json,
        ModelMessagesTypeAdapter.validate_json,
        check_pydantic_ai,
    ),
    Case("langchain", build_langchain, langchain_dump, langchain_load, check_langchain),
    Case("ceiling", build_ceiling, CEILING_ADAPTER.dump_json, CEILING_ADAPTER.validate_json, check_ceiling),
)


@dataclass
class Result:
    dump: list[float]
    load: list[float]
    total: list[float]
    cpu: list[float]
    json_bytes: int


def repeats_for(n: int, scale: float) -> int:
    return max(5, round(scale * min(201, 20000 // n)))


def paired_ratio(ours: Sequence[float], reference: Sequence[float]) -> float:
    """Median over repeats of ours/reference, both timed back to back in the same repeat.

    Pairing cancels load that drifts over the run (other processes on a shared machine): a burst that slows
    one repeat slows both sides of that repeat's ratio.
    """
    return statistics.median(a / b for a, b in zip(ours, reference, strict=True))


def run_size(n: int, repeats: int) -> dict[str, Result]:
    """Round-trip every library's conversation of `n` turns `repeats` times, interleaved."""
    data = {case.name: case.build(n) for case in CASES}
    results: dict[str, Result] = {}
    for case in CASES:  # warm-up, size and type check
        blob = case.dump(data[case.name])
        case.check(data[case.name], case.load(blob))
        results[case.name] = Result([], [], [], [], len(blob))
    assert count_tfrobot(data["tfrobot"]) == MESSAGES_PER_TURN * n
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            for case in CASES:
                conversation = data[case.name]
                c0 = time.process_time()
                t0 = time.perf_counter()
                blob = case.dump(conversation)
                t1 = time.perf_counter()
                restored = case.load(blob)
                t2 = time.perf_counter()
                c1 = time.process_time()
                del restored, blob
                result = results[case.name]
                result.dump.append(t1 - t0)
                result.load.append(t2 - t1)
                result.total.append(t2 - t0)
                result.cpu.append(c1 - c0)
            gc.collect()  # between repeats, outside the timed region
    finally:
        gc.enable()
    return results


def peak_memory(n: int) -> dict[str, int]:
    """Tracemalloc peak (bytes) of one round trip of `n` turns, above what was allocated before it."""
    peaks: dict[str, int] = {}
    for case in CASES:
        conversation = case.build(n)
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        restored = case.load(case.dump(conversation))
        peaks[case.name] = tracemalloc.get_traced_memory()[1] - before
        tracemalloc.stop()
        del restored
    return peaks


def import_time_ms(module: str, runs: int) -> tuple[float, float, float]:
    """`-X importtime` cumulative time of `module` in fresh interpreters: median, best, and pydantic's median."""
    ours: list[float] = []
    theirs: list[float] = []
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True)  # write .pyc files first
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import {module}"], check=True, capture_output=True, text=True
        )
        cumulative = {}
        for line in proc.stderr.splitlines():
            parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
            if len(parts) == 3 and parts[1].isdigit():
                cumulative[parts[2]] = int(parts[1]) / 1000
        ours.append(cumulative[module])
        theirs.append(cumulative.get("pydantic", 0.0) + cumulative.get("pydantic.main", 0.0))
    return statistics.median(ours), min(ours), statistics.median(theirs)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:9.3f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="turn counts N")
    parser.add_argument("--repeats-scale", type=float, default=1.0, help="multiply the number of repeats")
    parser.add_argument("--no-import", action="store_true", help="skip the import-time measurement")
    parser.add_argument("--smoke", action="store_true", help="toy sizes, 2 repeats, one import: the harness only")
    args = parser.parse_args(argv)
    sizes: list[int] = [2, 4] if args.smoke else sorted(args.sizes)
    import_runs = 1 if args.smoke else 5

    print(
        f"Python {platform.python_version()} | pydantic {pydantic.VERSION} | pydantic-ai {pydantic_ai.__version__}"
        f" | langchain-core {langchain_core.__version__} | {platform.machine()}"
    )
    print(f"{MESSAGES_PER_TURN} messages per turn (top level + trace records); medians; gc off while timing\n")

    per_message: dict[str, dict[int, float]] = {case.name: {} for case in CASES}
    worst_ratio = 0.0
    beats_peers = True
    header = f"{'N':>5} {'msgs':>6} {'library':<12} {'dump ms':>9} {'load ms':>9} {'total ms':>9} {'best ms':>9}"
    header += f" {'cpu ms':>9} {'us/msg':>8} {'x ceiling':>9} {'JSON KiB':>9} {'reps':>5}"
    print(header)
    print("-" * len(header))
    for n in sizes:
        repeats = 2 if args.smoke else repeats_for(n, args.repeats_scale)
        results = run_size(n, repeats)
        messages = MESSAGES_PER_TURN * n
        ratios = {case.name: paired_ratio(results[case.name].total, results["ceiling"].total) for case in CASES}
        for case in CASES:
            result = results[case.name]
            total = statistics.median(result.total)
            cpu = statistics.median(result.cpu)
            per_message[case.name][n] = cpu / messages
            print(
                f"{n:>5} {messages:>6} {case.name:<12} {_ms(statistics.median(result.dump))}"
                f" {_ms(statistics.median(result.load))} {_ms(total)} {_ms(min(result.total))} {_ms(cpu)}"
                f" {total / messages * 1e6:8.2f} {ratios[case.name]:9.2f} {result.json_bytes / 1024:9.1f} {repeats:>5}"
            )
        worst_ratio = max(worst_ratio, ratios["tfrobot"])
        beats_peers = beats_peers and all(
            paired_ratio(results["tfrobot"].total, results[peer].total) < 1 for peer in ("pydantic-ai", "langchain")
        )
        print()

    smallest, largest = sizes[0], sizes[-1]
    print(f"Linearity: per-message round trip, CPU time (us), at each N; scaling = N={largest} / N={smallest}")
    print(f"{'library':<12}" + "".join(f" {'N=' + str(n):>9}" for n in sizes) + f" {'scaling':>8}")
    for case in CASES:
        row = per_message[case.name]
        print(
            f"{case.name:<12}"
            + "".join(f" {row[n] * 1e6:9.2f}" for n in sizes)
            + f" {row[largest] / row[smallest]:8.2f}"
        )

    print(f"\nPeak memory of one round trip, N={largest} (tracemalloc, Python heap)")
    peaks = peak_memory(largest)
    for case in CASES:
        print(
            f"{case.name:<12} {peaks[case.name] / 2**20:8.1f} MiB  x ceiling {peaks[case.name] / peaks['ceiling']:.2f}"
        )

    import_ok = True
    if not args.no_import:
        ours_ms, best_ms, pydantic_ms = import_time_ms("tfrobot.schema.message", import_runs)
        import_ok = ours_ms < TARGET_IMPORT_MS
        print(
            f"\nimport tfrobot.schema.message (fresh interpreter, -X importtime cumulative, median of {import_runs}): "
            f"{ours_ms:.1f} ms (best {best_ms:.1f} ms; of which pydantic itself {pydantic_ms:.1f} ms)"
        )

    print("\nTargets")
    print(
        f"  tfrobot <= {TARGET_RATIO}x ceiling at every N : {'MET' if worst_ratio <= TARGET_RATIO else 'MISSED'}"
        f" (worst {worst_ratio:.2f}x)"
    )
    print(f"  tfrobot faster than both peers      : {'MET' if beats_peers else 'MISSED'}")
    if not args.no_import:
        print(f"  import < {TARGET_IMPORT_MS:.0f} ms                     : {'MET' if import_ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
