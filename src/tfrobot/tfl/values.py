"""TFL values: JSON-like data plus media parts, immutable, with their size and nesting known at creation.

Lists and dicts are `TList`/`TDict`, which remember their tree size (items counted as often as they
appear) and their depth. Both are computed in O(number of items) when a container is made, so every
limit check is cheap, and printing, comparing or passing a value to a tool costs at most
`max_value_size`, even for a value that shares one part many times (`a = [a, a]` repeated).
Values are never mutated after creation: `d["k"] = v` rebinds `d` to an updated copy, so no value can
contain itself and no alias can change behind the script's back.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from tfrobot.schema.message.msg_part import (
    AudioUserMsgPart,
    FileUserMsgPart,
    ImageUserMsgPart,
    MsgPart,
    TextUserMsgPart,
    VideoUserMsgPart,
)
from tfrobot.schema.message.tool_call import ToolReturn
from tfrobot.tfl.errors import ErrorKind, TFLError, TFLScriptError
from tfrobot.tfl.limits import TFLLimits
from tfrobot.tfl.nodes import Span
from tfrobot.tfl.parser import INT_MAX, INT_MIN

MEDIA_TYPES = (ImageUserMsgPart, AudioUserMsgPart, VideoUserMsgPart, FileUserMsgPart)


class TList(list[object]):
    """A TFL list: a Python list that knows its tree size and depth. Never mutated after creation."""

    __slots__ = ("depth", "size")

    def __init__(self, items: Iterable[object] = ()) -> None:
        super().__init__(items)
        self.size = 1 + sum(size_of(v) for v in self)
        self.depth = 1 + max((depth_of(v) for v in self), default=0)


class TDict(dict[str, object]):
    """A TFL dict (string keys): knows its tree size and depth. Never mutated after creation."""

    __slots__ = ("depth", "size")

    def __init__(self, items: Iterable[tuple[str, object]] = ()) -> None:
        super().__init__(items)
        self.size = 1 + sum(size_of(v) for v in self.values())
        self.depth = 1 + max((depth_of(v) for v in self.values()), default=0)


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns when it has media: a JSON-like `value` plus `attachments`.

    In a script it behaves as its `value` everywhere (printing, indexing, arithmetic, tool arguments);
    only `attach(x)` looks at its attachments. A tool may return one directly, or a `ToolReturn`.
    """

    value: object = None
    attachments: tuple[MsgPart, ...] = field(default_factory=tuple)


def size_of(value: object) -> int:
    """Tree size: 1 for a scalar or part, the remembered count for a container."""
    if isinstance(value, TList | TDict):
        return value.size
    if isinstance(value, ToolResult):
        return size_of(value.value) + len(value.attachments)
    return 1


def depth_of(value: object) -> int:
    """Nesting depth: 0 for a scalar, the remembered depth for a container."""
    if isinstance(value, TList | TDict):
        return value.depth
    if isinstance(value, ToolResult):
        return depth_of(value.value)
    return 0


def plain(value: object) -> object:
    """The value a `ToolResult` stands for; any other value unchanged."""
    return value.value if isinstance(value, ToolResult) else value


def type_name(value: object) -> str:
    """The TFL name of a value's type, for error messages."""
    value = plain(value)
    match value:
        case None:
            return "null"
        case bool():
            return "bool"
        case int():
            return "int"
        case float():
            return "float"
        case str():
            return "string"
        case list():
            return "list"
        case dict():
            return "dict"
        case BaseModel():
            return f"{getattr(value, 'type', 'media')} part"
    return type(value).__name__


def a_type(value: object) -> str:
    """The type name with its article ("an int", "a list"), for messages."""
    name = type_name(value)
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def fail(kind: ErrorKind, message: str, span: Span | None) -> TFLScriptError:
    """A positioned script error, ready to raise."""
    if span is None or not span.line:
        return TFLScriptError(TFLError(kind=kind, message=message))
    return TFLScriptError(
        TFLError(
            kind=kind,
            message=message,
            line=span.line,
            column=span.column,
            end_line=span.end_line,
            end_column=span.end_column,
        )
    )


class Budget:
    """The memory side of `TFLLimits` for one run: every new string and container is charged here."""

    def __init__(self, limits: TFLLimits) -> None:
        self.limits = limits
        self.allocated = 0

    def charge(self, units: int, span: Span | None) -> None:
        """Count `units` characters or items created; past `max_allocation` the run stops."""
        self.allocated += units
        if self.allocated > self.limits.max_allocation:
            raise fail(
                "limit",
                f"memory limit: the script created more than {self.limits.max_allocation:,} characters and "
                "items in total; build large output with print() line by line rather than by concatenation",
                span,
            )

    def string(self, text: str, span: Span | None) -> str:
        """Admit a new string: its length is charged and bounded."""
        if len(text) > self.limits.max_string_chars:
            raise fail(
                "limit",
                f"string limit: a string of {len(text):,} characters exceeds {self.limits.max_string_chars:,}",
                span,
            )
        self.charge(len(text), span)
        return text

    def check_string_length(self, length: int, span: Span | None) -> None:
        """Refuse a string before building it, when its length is known in advance (`s * n`)."""
        if length > self.limits.max_string_chars:
            raise fail(
                "limit",
                f"string limit: a string of {length:,} characters exceeds {self.limits.max_string_chars:,}",
                span,
            )

    def container(self, value: TList | TDict, span: Span | None) -> TList | TDict:
        """Admit a new list or dict: its items are charged; its tree size and depth are bounded."""
        if value.size > self.limits.max_value_size:
            raise fail(
                "limit",
                f"value limit: {a_type(value)} of {value.size:,} nested items exceeds {self.limits.max_value_size:,}",
                span,
            )
        if value.depth > self.limits.max_depth:
            raise fail("limit", f"nesting limit: values nest at most {self.limits.max_depth} levels deep", span)
        self.charge(len(value), span)
        return value

    def new_list(self, items: Iterable[object], span: Span | None) -> TList:
        """A new admitted list."""
        made = TList(items)
        self.container(made, span)
        return made

    def new_dict(self, items: Iterable[tuple[str, object]], span: Span | None) -> TDict:
        """A new admitted dict."""
        made = TDict(items)
        self.container(made, span)
        return made

    def check_int(self, value: int, span: Span | None) -> int:
        """TFL integers are 64-bit, so that `x = x * x` in a loop cannot make a gigantic number."""
        if not INT_MIN <= value <= INT_MAX:
            raise fail("value", "integer overflow: the result does not fit in 64 bits", span)
        return value

    def check_float(self, value: float, span: Span | None) -> float:
        """Results must be finite numbers (JSON has no NaN or infinity)."""
        if not math.isfinite(value):
            raise fail("value", "the result is not a finite number", span)
        return value

    # ---- crossing the boundary with tools -------------------------------------------------------

    def from_python(self, obj: object, span: Span | None, tool: str, depth: int = 0) -> object:
        """A tool's return value as a TFL value; what TFL cannot hold is a tool error naming the tool."""
        if depth > self.limits.max_depth:
            raise fail("tool", f"tool {tool!r} returned a value nested deeper than {self.limits.max_depth}", span)
        match obj:
            case None | bool():
                return obj
            case int():
                return self.check_int(obj, span)
            case float():
                if not math.isfinite(obj):
                    raise fail("tool", f"tool {tool!r} returned a non-finite number ({obj})", span)
                return obj
            case str():
                return self.string(obj, span)
            case ToolReturn():
                if obj.is_error:
                    raise fail("tool", f"tool {tool!r} reported an error: {obj.result}", span)
                return ToolResult(
                    self.from_python(_maybe_json(obj.result), span, tool, depth + 1), tuple(obj.attachments)
                )
            case ToolResult():
                return ToolResult(self.from_python(obj.value, span, tool, depth + 1), tuple(obj.attachments))
            case TextUserMsgPart():
                return self.string(obj.text, span)
            case ImageUserMsgPart() | AudioUserMsgPart() | VideoUserMsgPart() | FileUserMsgPart():
                return obj
            case BaseModel():
                return self.from_python(obj.model_dump(mode="json"), span, tool, depth + 1)
            case Mapping() | list() | tuple() if len(obj) >= self.limits.max_value_size:
                raise fail(
                    "limit",
                    f"value limit: tool {tool!r} returned {len(obj):,} items; at most "
                    f"{self.limits.max_value_size - 1:,} fit in one value",
                    span,
                )
            case Mapping():
                pairs: list[tuple[str, object]] = []
                for key, item in obj.items():
                    if not isinstance(key, str):
                        raise fail("tool", f"tool {tool!r} returned a dict with a non-string key {key!r}", span)
                    pairs.append((key, self.from_python(item, span, tool, depth + 1)))
                return self.new_dict(pairs, span)
            case list() | tuple():
                items: list[object] = []
                for item in obj:  # a loop, not a generator: one stack frame per nesting level
                    items.append(self.from_python(item, span, tool, depth + 1))
                return self.new_list(items, span)
        raise fail(
            "tool",
            f"tool {tool!r} returned a {type(obj).__name__}, which TFL cannot hold (JSON-like values, media "
            "parts, ToolReturn or ToolResult only)",
            span,
        )


_JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def _not_json(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _maybe_json(text: str) -> object:
    """A `ToolReturn.result` is text or JSON text (the Drive renders non-string results as JSON): objects,
    arrays, numbers, true/false/null become data the script can index and compute with; anything else,
    including NaN and Infinity, stays text."""
    stripped = text.strip()
    if stripped[:1] in ("{", "[") or stripped in ("true", "false", "null") or _JSON_NUMBER.fullmatch(stripped):
        try:
            return json.loads(stripped, parse_constant=_not_json)
        except (ValueError, RecursionError):
            return text
    return text


def to_python(value: object) -> Any:
    """A TFL value as plain Python data for a tool: fresh lists and dicts (a tool cannot alter ours)."""
    value = plain(value)
    if isinstance(value, list):
        items: list[Any] = []
        for item in value:  # loops, not comprehensions: one stack frame per nesting level
            items.append(to_python(item))
        return items
    if isinstance(value, dict):
        pairs: dict[str, Any] = {}
        for key, item in value.items():
            pairs[key] = to_python(item)
        return pairs
    return value


class _Full(Exception):
    """Rendering went past its budget."""


def render(value: object, limit: int, *, top: bool = True) -> str:
    """Text of a value as print() shows it: strings bare at the top level, everything else JSON-like.

    Raises `OverflowError` once the text would exceed `limit` characters: a value may be large as a tree
    but is never rendered further than the caller can use.
    """
    text, complete = render_prefix(value, limit, top=top)
    if not complete:
        raise OverflowError(f"text longer than {limit} characters")
    return text


_CHUNK = 4096
"""Characters of a string escaped at a time when rendering: the text is built to its limit, never further."""


def render_prefix(value: object, limit: int, *, top: bool = True) -> tuple[str, bool]:
    """The first `limit` characters of a value's text, and whether that is all of it.

    The text is written into one buffer and every piece is cut to the room left before it is made, so
    rendering costs about `limit` characters of memory whatever the value: a string inside a list is
    escaped a chunk at a time (JSON escapes make up to six characters of one)."""
    out = io.StringIO()
    used = [0]

    def put(text: str) -> None:
        room = limit - used[0]
        if len(text) > room:
            out.write(text[: max(room, 0)])
            raise _Full
        used[0] += len(text)
        out.write(text)

    def quoted(text: str) -> None:
        put('"')
        for start in range(0, len(text), _CHUNK):
            put(json.dumps(text[start : start + _CHUNK], ensure_ascii=False)[1:-1])
        put('"')

    def walk(item: object, top_level: bool) -> None:
        item = plain(item)
        if item is None:
            put("null")
        elif item is True:
            put("true")
        elif item is False:
            put("false")
        elif isinstance(item, str):
            if top_level:
                put(item[: limit - used[0] + 1])
            else:
                quoted(item)
        elif isinstance(item, int | float):
            put(repr(item))
        elif isinstance(item, list):
            put("[")
            for i, sub in enumerate(item):
                if i:
                    put(", ")
                walk(sub, False)
            put("]")
        elif isinstance(item, dict):
            put("{")
            for i, (key, sub) in enumerate(item.items()):
                if i:
                    put(", ")
                quoted(key)
                put(": ")
                walk(sub, False)
            put("}")
        elif isinstance(item, MEDIA_TYPES):
            put(f"<{item.type}: ")
            put((item.detail or item.source)[: limit - used[0] + 1])
            put(">")
        else:
            put(f"<{type_name(item)}>")

    try:
        walk(value, top)
    except _Full:
        return out.getvalue(), False
    return out.getvalue(), True


def media_parts(value: object) -> list[MsgPart] | None:
    """The parts `attach(value)` adds, or None when the value carries no media."""
    if isinstance(value, MEDIA_TYPES):
        return [value]
    if isinstance(value, ToolResult):
        return list(value.attachments) if value.attachments else None
    if isinstance(value, list):
        found: list[MsgPart] = []
        for item in value:
            parts = media_parts(item)
            if parts is None:
                return None
            found.extend(parts)
        return found
    return None


__all__ = [
    "MEDIA_TYPES",
    "Budget",
    "TDict",
    "TList",
    "ToolResult",
    "a_type",
    "depth_of",
    "fail",
    "media_parts",
    "plain",
    "render",
    "render_prefix",
    "size_of",
    "to_python",
    "type_name",
]
