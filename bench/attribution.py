"""Where the JSON round-trip time of the message shape goes: variants of the hand-written ceiling.

`bench/messages.py` compares libraries; this script explains the ceiling's (and so TFRobot's) cost by
switching one design choice at a time in an otherwise identical plain-Pydantic family, all validated from
the very same JSON (a TFRobot dump of the conversation in `messages.py`):

* ``callable`` vs ``keys`` - the seed's callable ``Discriminator`` on ``role:msg_type`` vs. nested key
  discriminators (``role``, then ``msg_type``). With a callable, pydantic-core turns each JSON message -
  its whole trace included - into Python dicts to call the function, then validates the JSON again.
* ``Sequence`` vs ``list`` for `content`, `tool_reses`, `console_reses` - pydantic serializes ``Sequence``
  through a Python function, once per field value.
* ``JsonValue`` vs ``Any`` for `additional_kwargs` - JsonValue is itself a callable-discriminated union.
* ``extra="ignore"`` vs ``extra="allow"`` - TFRobot keeps unknown fields.

Run ``.venv/bin/python bench/attribution.py [N]`` (``--smoke``: 4 turns, one round). Times are process CPU
time (robust to other load), best of several repeats, in ms for N turns (5 messages each), dump and load
separately.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AnyUrl, BaseModel, ConfigDict, Discriminator, Field, JsonValue, Tag, TypeAdapter

from messages import MESSAGES_PER_TURN, TFROBOT_ADAPTER, build_tfrobot
from tfrobot.schema.message.base import new_msg_id, now_ms

Variant = tuple[Literal["callable", "keys"], bool, bool, Literal["ignore", "allow"]]
"""(discriminator, Sequence fields, JsonValue metadata, extra)"""

VARIANTS: dict[str, Variant] = {
    "ceiling: callable, Sequence, JsonValue, ignore": ("callable", True, True, "ignore"),
    "  extra='allow'": ("callable", True, True, "allow"),
    "  list instead of Sequence": ("callable", False, True, "ignore"),
    "  Any instead of JsonValue": ("callable", True, False, "ignore"),
    "  key discriminators": ("keys", True, True, "ignore"),
    "  key discriminators, list, Any": ("keys", False, False, "ignore"),
    "  key discriminators, list, Any, allow": ("keys", False, False, "allow"),
}


def family(
    discriminator: Literal["callable", "keys"], sequence: bool, json_value: bool, extra: str
) -> TypeAdapter[Any]:
    """A `TypeAdapter(list[Message])` for one variant of the ceiling's message family."""
    seq: Any = Sequence if sequence else list
    meta: Any = JsonValue if json_value else Any
    config = ConfigDict(extra=extra, ser_json_bytes="base64", val_json_bytes="base64")  # type: ignore[typeddict-item]

    class TextPart(BaseModel):
        model_config = config
        type: Literal["text"] = "text"
        text: str

    class ImagePart(BaseModel):
        model_config = config
        type: Literal["image"] = "image"
        url: AnyUrl | None = None
        path: Path | None = None
        data: bytes | None = None
        media_type: str | None = None
        detail: str = ""

    part: Any = Annotated[TextPart | ImagePart, Field(discriminator="type")]

    class Call(BaseModel):
        model_config = config
        id: str
        name: str
        arguments: str = "{}"
        type: Literal["function"] = "function"

    class Return(BaseModel):
        model_config = config
        call_id: str
        name: str | None = None
        result: str = ""
        attachments: list[part] = Field(default_factory=list)
        is_error: bool = False

    class Console(BaseModel):
        model_config = config
        result: str = ""
        summary_result: str | None = None
        attachments: list[part] = Field(default_factory=list)
        script: str | None = None
        trace_meta: dict[str, meta] | None = None

    class Base(BaseModel):
        model_config = config
        role: Literal["system", "user", "assistant", "function", "tool", "console"]
        content: str | Path | AnyUrl | part | seq[Base] | seq[part] | None = None
        tool_calls: list[Call] | None = None
        tool_reses: seq[str | Return] | None = None
        function_call: dict[str, Any] | None = None
        function_res: dict[str, Any] | None = None
        console_reses: seq[str | Console] | None = None
        tfl_scripts: list[str] | None = None
        additional_kwargs: dict[str, meta] = Field(default_factory=dict)
        create_ts: int = Field(default_factory=now_ms)
        creator: dict[str, Any] | None = None
        group: dict[str, Any] | None = None
        msg_id: str = Field(default_factory=new_msg_id)
        conversation_id: str | None = None

    class Other(Base):
        role: Literal["system", "function", "tool", "console"]

    class Trace(BaseModel):
        records: list[message] = Field(default_factory=list)

    class User(Base):
        role: Literal["user"] = "user"
        intermediate_trace: Trace = Field(default_factory=Trace)

    class Text(User):
        msg_type: Literal["text"] = "text"
        content: str

    class Multi(User):
        msg_type: Literal["multipart"] = "multipart"
        content: list[part]

    class Assistant(Base):
        role: Literal["assistant"] = "assistant"
        msg_type: Literal["text"] = "text"
        content: str = ""
        reasoning_content: str | None = None
        reasoning_blocks: list[dict[str, Any]] = Field(default_factory=list)
        finish_reason: str | None = None
        usage: dict[str, Any] | None = None
        model: str | None = None

    def tag(v: Any) -> str:
        role, msg_type = (v.get("role"), v.get("msg_type")) if isinstance(v, dict) else (v.role, None)
        if not isinstance(v, dict):
            msg_type = getattr(v, "msg_type", None)
        return f"{role}:{msg_type}" if msg_type is not None and role in ("user", "assistant") else "default"

    message: Any
    if discriminator == "callable":
        message = Annotated[
            Annotated[Text, Tag("user:text")]
            | Annotated[Multi, Tag("user:multipart")]
            | Annotated[Assistant, Tag("assistant:text")]
            | Annotated[Base, Tag("default")],
            Discriminator(tag),
        ]
    else:
        message = Annotated[
            Annotated[Text | Multi, Field(discriminator="msg_type")] | Assistant | Other, Field(discriminator="role")
        ]
    namespace = {"message": message, "Base": Base, "part": part, "seq": seq, "meta": meta}
    Trace.model_rebuild(_types_namespace=namespace)
    for model in (Base, Other, User, Text, Multi, Assistant):
        model.model_rebuild(force=True, _types_namespace=namespace)
    return TypeAdapter(list[message])


def best_cpu_ms(run: Callable[[], object], repeats: int) -> float:
    """The smallest process CPU time of `repeats` calls, gc off, in ms."""
    times: list[float] = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            start = time.process_time()
            out = run()
            times.append(time.process_time() - start)
            del out
    finally:
        gc.enable()
    return min(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("n", type=int, nargs="?", default=200, help="turns of the conversation (5 messages each)")
    parser.add_argument("--smoke", action="store_true", help="4 turns, one round: the harness only")
    args = parser.parse_args()
    n, rounds, repeats = (4, 1, 1) if args.smoke else (args.n, 5, 3)
    blob = TFROBOT_ADAPTER.dump_json(build_tfrobot(n))
    adapters: dict[str, TypeAdapter[Any]] = {name: family(*variant) for name, variant in VARIANTS.items()}
    adapters["tfrobot (this checkout)"] = TFROBOT_ADAPTER
    rows: dict[str, list[tuple[float, float]]] = {name: [] for name in adapters}
    for _ in range(rounds):  # interleaved across variants
        for name, adapter in adapters.items():
            objects = adapter.validate_json(blob)
            dump = best_cpu_ms(lambda a=adapter, o=objects: a.dump_json(o), repeats)  # type: ignore[misc]
            load = best_cpu_ms(lambda a=adapter: a.validate_json(blob), repeats)  # type: ignore[misc]
            rows[name].append((dump, load))
    print(f"N={n} turns ({MESSAGES_PER_TURN * n} messages), same JSON for all; best CPU ms")
    print(f"{'variant':<44} {'dump':>8} {'load':>8} {'total':>8}")
    for name, values in rows.items():
        dump, load = min(v[0] for v in values), min(v[1] for v in values)
        print(f"{name:<44} {dump:8.2f} {load:8.2f} {dump + load:8.2f}")


if __name__ == "__main__":
    main()
