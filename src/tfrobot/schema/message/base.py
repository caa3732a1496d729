"""`BaseMessage`: the one message shape that flows between brain, chains, memory and tools.

`to_llm_request()` is the single entry from this standard format into the provider-neutral LLM format
(seed: "to_llm_request() 契约"). User and assistant messages have rich, subclass-specific content, so the
base refuses to convert them rather than produce a request that silently loses `tool_calls` or parts;
system, tool, console and function messages have one shape and convert here.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Final, Literal, Self, TypeAlias, cast, get_args

from pydantic import (
    AnyUrl,
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    JsonValue,
    ModelWrapValidatorHandler,
    model_validator,
)
from pydantic._internal._namespace_utils import MappingNamespace
from pydantic_core import CoreSchema, core_schema

from tfrobot.schema.message.console import ConsoleResult
from tfrobot.schema.message.discriminator import (
    adapter,
    fixed_literal,
    has_descendants,
    message_union_schema,
    own_build,
    python_only,
    register,
)
from tfrobot.schema.message.errors import MessageContractError
from tfrobot.schema.message.fields_set import is_shared
from tfrobot.schema.message.llms.llm_requests import (
    LLMFunctionMessage,
    LLMMessage,
    LLMSystemMessage,
    LLMTFLMessage,
    LLMToolMessage,
    LLMUserMessage,
)
from tfrobot.schema.message.msg_part import MsgPart
from tfrobot.schema.message.never_held import drop_never_held, never_held
from tfrobot.schema.message.storable import check_storable
from tfrobot.schema.message.tool_call import FunctionCall, FunctionReturn, ToolCall, ToolReturn
from tfrobot.schema.omission import IS_EMPTY, IS_NONE
from tfrobot.schema.types import AttributeValue, written_by_own_class
from tfrobot.schema.users import BaseGroup, BaseUser

Role: TypeAlias = Literal["system", "user", "assistant", "function", "tool", "console"]

MessageContent: TypeAlias = (
    str | JsonValue | Path | AnyUrl | BaseUser | MsgPart | Sequence["BaseMessage"] | Sequence[MsgPart] | None
)
"""What `content` may hold; each subclass narrows it (seed: "子类通过泛型收窄").

Tried left to right, and plain JSON data comes second, right after text: so the fallback class keeps the
content of a record whose kind a newer version introduced exactly as it came (a dict that happens to have
a `uid` stays a dict, it does not turn into a `BaseUser` with added keys), while objects built in Python
(a `BaseUser`, a part, nested messages) match no JSON value and keep their own types."""


class _WrittenAsList:
    """Serializes a `Sequence` field in JSON as pydantic-core's own list of its items, in Rust, and each item
    (in either mode) by its own type.

    Pydantic serializes `Sequence[X]` with a Python function per value (`serialize_sequence_via_list`, which
    calls back into Rust for every item): a quarter of the dump of a conversation went there, for the result
    of every tool message. In JSON a sequence is a list whatever its Python type, so the builtin `list` (no
    Python frame) then the list schema of the items write the same JSON. Python-mode dumps keep pydantic's
    own serializer (a tuple stays a tuple). The items are `written_by_own_class` in both modes: the items' union
    (`str | ToolReturn`) wrote a subclass of `ToolReturn` as a `ToolReturn`, dropping the subclass's fields,
    after trying `str` first for every result. Validation is pydantic's own."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        schema = handler(source)
        (item,) = get_args(source)
        node = cast(dict[str, Any], schema)
        python_serializer = node.get("serialization")
        if node.get("type") != "json-or-python" or not isinstance(python_serializer, dict):
            raise TypeError(f"_WrittenAsList expects pydantic's Sequence schema for {source!r}, got {node.get('type')}")
        items = written_by_own_class(handler.generate_schema(item), get_args(item))
        # Python mode serializes without the JSON-only serializer, from the Python branch: give it pydantic's own
        # (it keeps a tuple a tuple), writing each item by its own type.
        node["python_schema"] = {**node["python_schema"], "serialization": {**python_serializer, "schema": items}}
        node["serialization"] = core_schema.plain_serializer_function_ser_schema(
            list, return_schema=core_schema.list_schema(items), when_used="json"
        )
        return schema


_object_setattr: Final = object.__setattr__
_KIND_FIELDS: Final = frozenset({"role", "msg_type"})


def _refuse_another_kind(cls: type[BaseModel], name: str, value: Any) -> None:
    """Raise when `value` is not the one `role`/`msg_type` (`name`) every instance of `cls` has."""
    fixed = fixed_literal(cls, name)
    if fixed is not None and value != fixed:
        kind = cls.__name__
        raise TypeError(
            f"{kind}.{name} is {fixed!r} for every {kind}: it names the class a stored record of it loads as, "
            f"so a {kind} with {name}={value!r} would be stored as a message of another class. Fix: build a "
            f"message of the class whose {name} is {value!r}."
        )


def _refuse_never_held(cls: type[BaseModel], name: str) -> None:
    raise AttributeError(
        f"{cls.__name__} never holds `{name}`: it reads as None on every {cls.__name__} and is not stored. "
        "Fix: set it on the message that holds it (tool calls on the assistant message, results on a tool or "
        "console message)."
    )


def now_ms() -> int:
    """Current time in milliseconds: the resolution of `create_ts`, the trace's ordering key."""
    return time.time_ns() // 1_000_000


def new_msg_id() -> str:
    """A fresh, globally unique message id."""
    return uuid.uuid4().hex


class BaseMessage(BaseModel):
    """A message of any role; the fallback class for system, tool, console and function messages.

    Used as a type anywhere (``list[BaseMessage]``, a dict value, a TypeAdapter), this class validates to
    the registered subclass that the record's `role:msg_type` names: subclasses never degrade to the base
    (see `tfrobot.schema.message.discriminator`). Unknown fields are kept, so a record written by a newer
    version survives a load and a save unchanged.
    """

    model_config = ConfigDict(extra="allow", ser_json_bytes="base64", val_json_bytes="base64", defer_build=True)

    role: Role = Field(description="Who speaks; selects the conversion branch.")
    content: MessageContent = Field(
        default=None,
        union_mode="left_to_right",
        exclude_if=IS_NONE,
        description="Polymorphic content, narrowed by subclasses.",
    )
    tool_calls: list[ToolCall] | None = Field(
        default=None, exclude_if=IS_NONE, description="Tool calls requested by the LLM."
    )
    tool_reses: Annotated[Sequence[str | ToolReturn], _WrittenAsList] | None = Field(
        default=None, exclude_if=IS_NONE, description="Tool results (role=tool)."
    )
    function_call: FunctionCall | None = Field(
        default=None, exclude_if=IS_NONE, description="Legacy OpenAI function call."
    )
    function_res: FunctionReturn | None = Field(default=None, exclude_if=IS_NONE, description="Legacy function result.")
    console_reses: Annotated[Sequence[str | ConsoleResult], _WrittenAsList] | None = Field(
        default=None, exclude_if=IS_NONE, description="TFL interpreter output (role=console)."
    )
    tfl_scripts: list[str] | None = Field(
        default=None, exclude_if=IS_NONE, description="TFL scripts written by the assistant."
    )
    additional_kwargs: dict[str, AttributeValue] = Field(
        default_factory=dict,
        exclude_if=IS_EMPTY,
        description="Free metadata: msg_meta, emphasis marks, `__trace_meta`.",
    )
    create_ts: int = Field(default_factory=now_ms, description="Creation time in ms; orders trace records.")
    creator: BaseUser | None = Field(default=None, exclude_if=IS_NONE, description="Who wrote it.")
    group: BaseGroup | None = Field(default=None, exclude_if=IS_NONE, description="Where it was said.")
    msg_id: str = Field(default_factory=new_msg_id, description="Globally unique id; writes are idempotent on it.")
    conversation_id: str | None = Field(default=None, exclude_if=IS_NONE, description="The conversation it belongs to.")

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return message_union_schema(cls, handler)

    @classmethod
    def model_rebuild(
        cls,
        *,
        force: bool = False,
        raise_errors: bool = True,
        _parent_namespace_depth: int = 2,
        _types_namespace: MappingNamespace | None = None,
    ) -> bool | None:
        """Build the class's own schema (every build goes through here: message classes defer theirs)."""
        with own_build(cls):
            return super().model_rebuild(
                force=force,
                raise_errors=raise_errors,
                _parent_namespace_depth=_parent_namespace_depth + 1,
                _types_namespace=_types_namespace,
            )

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Self:
        """Validate `obj` as `cls` or the descendant its `role:msg_type` names (never the bare base)."""
        if has_descendants(cls):
            return cast(Self, adapter(cls).validate_python(obj, **kwargs))
        return super().model_validate(obj, **kwargs)

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kwargs: Any) -> Self:
        """Validate JSON as `cls` or the descendant its `role:msg_type` names (never the bare base)."""
        if has_descendants(cls):
            return cast(Self, adapter(cls).validate_json(json_data, **kwargs))
        msg = super().model_validate_json(json_data, **kwargs)
        drop_never_held(msg, refuse=False)  # the union does it for its messages (`never_held.py`)
        return msg

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        register(cls)

    def __setattr__(self, name: str, value: Any) -> None:
        """Pydantic's, after giving the message a fields set of its own (`fields_set.py`); a message's kind
        (`role`, `msg_type`) is its class's and cannot be assigned another value, nor a field its class never
        holds (`never_held.py`) any value."""
        if name in _KIND_FIELDS:
            _refuse_another_kind(type(self), name, value)
        elif name in never_held(type(self)):
            _refuse_never_held(type(self), name)
        fields_set = self.__pydantic_fields_set__
        if is_shared(fields_set):
            _object_setattr(self, "__pydantic_fields_set__", set(fields_set))
        super().__setattr__(name, value)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """Pydantic's copy; an `update` cannot give the copy a kind other than its class's (see `__setattr__`)."""
        if update:
            for name in _KIND_FIELDS.intersection(update):
                _refuse_another_kind(type(self), name, update[name])
            never = never_held(type(self)).intersection(update)
            for name in never:
                if update[name] is not None:
                    _refuse_never_held(type(self), name)
            if never:  # (None: what every message of the class reads there)
                update = {name: value for name, value in update.items() if name not in never}
        return super().model_copy(update=update, deep=deep)

    @model_validator(mode="wrap")
    @classmethod
    @python_only
    def _storable(cls, value: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        """Refuse text that could never be stored (a lone surrogate: `storable.py`) where it enters, not at
        `sync_msg` after a whole turn, and a value for a field the class never holds (`never_held.py`) in the
        input a message is built from. Only Python input is checked (`python_only`): JSON cannot hold a lone
        surrogate, and a stored record keeps such a value (the union and `model_validate_json` drop its nulls),
        as does a message loaded from one and passed on as it is (review R22: it could go in no container)."""
        msg = handler(value)
        check_storable(msg)
        if msg is not value:
            drop_never_held(msg, refuse=True)
        return msg

    def to_llm_request(self) -> LLMMessage | list[LLMMessage]:
        """Convert to the provider-neutral LLM format (see the module docstring for the contract)."""
        match self.role:
            case "tool":
                return self._tool_to_llm()
            case "system":
                return LLMSystemMessage(content=self.text())
            case "console":
                return self._console_to_llm()
            case "function":
                if self.function_res is None:
                    raise MessageContractError(f"function message {self.msg_id} has no `function_res` to send")
                return LLMFunctionMessage(name=self.function_res.name, content=self.function_res.result)
            case "user" | "assistant":
                raise self._contract_error()

    def text(self) -> str:
        """The content as plain text (parts joined; media by their `detail`), for logs and text-only roles.

        Tool and console messages without content read as their results."""
        if self.content is None and (self.tool_reses or self.console_reses):
            results = [*(self.tool_reses or ()), *(self.console_reses or ())]
            return "\n".join(r if isinstance(r, str) else r.result for r in results)
        return content_text(self.content)

    def _contract_error(self) -> MessageContractError:
        msg_type = getattr(self, "msg_type", None)
        unknown = f" with msg_type {msg_type!r} (unknown to this version)" if msg_type else ""
        example = "TextMessage" if self.role == "user" else "AssistantTextMessage"
        return MessageContractError(
            f"{self.role} message {self.msg_id}{unknown} is a plain {type(self).__name__}: {self.role} messages "
            f"must be a subclass that implements to_llm_request() (e.g. {example}). A base instance here means "
            "it was built directly or written by a newer TFRobot; load it with the version that wrote it."
        )

    def _console_to_llm(self) -> list[LLMMessage]:
        out: list[LLMMessage] = []
        attachments: list[MsgPart] = []
        for res in self.console_reses or ():
            if isinstance(res, str):
                out.append(LLMTFLMessage(content=res))
                continue
            out.append(LLMTFLMessage(content=res.result or res.summary_result or ""))
            attachments.extend(res.attachments)
        if not out and self.content is not None:
            out.append(LLMTFLMessage(content=self.text()))
        if attachments:
            out.append(LLMUserMessage(content=attachments, attachment_of=self.msg_id))
        return out

    def _tool_to_llm(self) -> list[LLMMessage]:
        reses = self.tool_reses
        if reses is not None and len(reses) == 1:  # the usual tool message: one result, no media
            res = reses[0]
            if type(res) is ToolReturn and not res.attachments:
                return [LLMToolMessage(res.call_id, res.result, res.name, res.is_error)]
        out: list[LLMMessage] = []
        carriers: list[LLMMessage] = []
        for res in self.tool_reses or ():
            if isinstance(res, str):
                index = list(self.tool_reses or ()).index(res)
                raise MessageContractError(
                    f"tool message {self.msg_id}: result #{index} is a bare string without a call id, and no "
                    "provider accepts a tool result it cannot match to its call; store a ToolReturn(call_id=…)"
                )
            # tool_call_id, content, name, is_error: by position (see the `llm_requests` docstring)
            out.append(LLMToolMessage(res.call_id, res.result, res.name, res.is_error))
            if res.attachments:
                carriers.append(LLMUserMessage(content=list(res.attachments), attachment_of=res.call_id))
        if not out:
            raise MessageContractError(f"tool message {self.msg_id} has no `tool_reses` to send")
        if carriers:
            out += carriers
        return out


def content_text(content: MessageContent) -> str:
    """Render any message content as text; media parts become their `detail` (or a short placeholder)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, BaseUser):
        return f"{content.name or content.uid} (contact {content.uid})"
    if isinstance(content, Path | AnyUrl):
        return str(content)
    if isinstance(content, BaseModel):
        return part_text(content)
    if isinstance(content, list | tuple):
        return "\n".join(part_text(item) if isinstance(item, BaseModel) else _json_text(item) for item in content)
    return _json_text(content)


def _json_text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def part_text(part: BaseModel) -> str:
    """A part as text: its text, or a media part's `detail`, or a placeholder naming its source."""
    if isinstance(part, BaseMessage):
        return part.text()
    text = getattr(part, "text", None)
    if isinstance(text, str):
        return text
    detail = getattr(part, "detail", "")
    if detail:
        return str(detail)
    return f"[{getattr(part, 'type', 'media')}: {getattr(part, 'source', '')}]"
