"""Provider-neutral LLM messages: the target of `to_llm_request()` and the input of provider adapters.

Closer to the APIs than `BaseMessage` (one message per tool result, console output in its own role,
attachments in user messages that say what they belong to) yet free of any provider's dict shape.

They are built on every request from messages that were validated when they were made, so they are
slotted standard-library dataclasses: cheap to build (no second validation), compared field by field,
and still a Pydantic type. `TypeAdapter(LLMMessage)` validates dicts into them (unknown keys refused)
and dumps them (`model_dump`/`model_validate` on each class are shortcuts to that adapter). The
constructor does not coerce, so pass the declared types. Construct them with keywords; `role` takes
nothing else. The other fields may also be passed by position, in the order declared: the conversions
that build one message per message of every request do, because binding keywords costs more in CPython
than building the object (a positional call of `LLMAssistantMessage` takes about half the time).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, ClassVar, Literal, Self, TypeAlias

from pydantic import ConfigDict, Field, RootModel, TypeAdapter

from tfrobot.schema.message.llms.llm_response import ReasoningBlock, ServerToolBlock
from tfrobot.schema.message.msg_part import MsgPart, TextUserMsgPart
from tfrobot.schema.message.tool_call import ToolCall

LLMToolCall: TypeAlias = ToolCall
"""A tool call in a request is the same object the assistant message holds: nothing to convert."""


_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def _adapter(cls: type[Any]) -> TypeAdapter[Any]:
    """The TypeAdapter of one message class, built on first use (building it at import would be slow)."""
    found = _ADAPTERS.get(cls)
    if found is None:
        found = _ADAPTERS[cls] = TypeAdapter(cls)
    return found


@dataclass(slots=True, kw_only=True)
class BaseLLMMessage:
    """Common base of the neutral LLM messages."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(
        extra="forbid", ser_json_bytes="base64", val_json_bytes="base64"
    )

    role: str

    @classmethod
    def model_validate(cls, obj: Any) -> Self:
        """`obj` (a dict or an instance) validated as this class."""
        validated: Self = _adapter(cls).validate_python(obj)
        return validated

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """The message as a dict (the keyword arguments of `TypeAdapter.dump_python`)."""
        dumped: dict[str, Any] = _adapter(type(self)).dump_python(self, **kwargs)
        return dumped

    def model_dump_json(self, **kwargs: Any) -> str:
        """The message as JSON (the keyword arguments of `TypeAdapter.dump_json`)."""
        return _adapter(type(self)).dump_json(self, **kwargs).decode()

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Self:
        """A shallow copy with the fields in `update` replaced."""
        return replace(self, **(update or {}))


@dataclass(slots=True)
class LLMSystemMessage(BaseLLMMessage):
    """System instructions. Providers without a system role lift or degrade it."""

    role: Literal["system"] = field(default="system", kw_only=True)
    content: str


@dataclass(slots=True)
class LLMUserMessage(BaseLLMMessage):
    """User text or parts. `attachment_of` marks a message that only carries the media of a tool call or
    console run (its id), so a provider can fold it back into that result where the API allows."""

    role: Literal["user"] = field(default="user", kw_only=True)
    content: str | list[MsgPart]
    name: str | None = None
    attachment_of: str | None = None


@dataclass(slots=True)
class LLMAssistantMessage(BaseLLMMessage):
    """Assistant text, tool calls, reasoning, a refusal and the provider's server-side tool blocks; nothing of
    an `AssistantTextMessage` is left behind."""

    role: Literal["assistant"] = field(default="assistant", kw_only=True)
    content: str | None = None
    tool_calls: list[LLMToolCall] = field(default_factory=list)
    reasoning_content: str | None = None
    reasoning_blocks: list[ReasoningBlock] = field(default_factory=list)
    model: Annotated[
        str | None,
        Field(
            description="'provider:model' that wrote it; reasoning text is replayed only to the provider that made it."
        ),
    ] = None
    refusal: Annotated[str | None, Field(description="What the model said when it refused to answer.")] = None
    server_tool_blocks: tuple[ServerToolBlock, ...] = ()  # (a tuple: no default factory to run per message)
    text_blocks: tuple[ServerToolBlock, ...] = ()
    """The provider's text items kept whole (`AssistantTextMessage.text_blocks`), replayed to that provider."""


@dataclass(slots=True)
class LLMToolMessage(BaseLLMMessage):
    """The result of one tool call."""

    role: Literal["tool"] = field(default="tool", kw_only=True)
    tool_call_id: str
    content: str
    name: str | None = None
    is_error: bool = False


@dataclass(slots=True)
class LLMFunctionMessage(BaseLLMMessage):
    """The result of a legacy function call."""

    role: Literal["function"] = field(default="function", kw_only=True)
    name: str
    content: str


@dataclass(slots=True)
class LLMTFLMessage(BaseLLMMessage):
    """TFL console output. No provider has this role: OpenAI rewrites it to user, Anthropic to a user
    text block (seed: "console role → user text block（降级）")."""

    role: Literal["console"] = field(default="console", kw_only=True)
    content: str


LLMMessage: TypeAlias = Annotated[
    LLMSystemMessage | LLMUserMessage | LLMAssistantMessage | LLMToolMessage | LLMFunctionMessage | LLMTFLMessage,
    Field(discriminator="role"),
]
"""Any neutral LLM message, dispatched on `role`."""


class LLMRequestMessages(RootModel):  # type: ignore[type-arg]  # `root` below types it (RootModel[...] would build at import)
    """The output of `format_to_request_msgs`: one entry per conversation message, some expanded to lists."""

    model_config = ConfigDict(defer_build=True)

    root: list[LLMMessage | list[LLMMessage]]

    def to_list(self) -> list[BaseLLMMessage]:
        """Flatten, then merge neighbours that providers want as one message (seed Phase 4, "展平 & 归并").

        Adjacent system messages join their text; adjacent user messages join their parts when they carry
        the same thing (both plain turns, or attachments of the same result). Nothing else is merged, so
        every tool result stays addressable by its call id.
        """
        merged: list[BaseLLMMessage] = []
        prev: BaseLLMMessage | None = None
        for msg in self.flat():
            if isinstance(msg, LLMSystemMessage) and isinstance(prev, LLMSystemMessage):
                prev = merged[-1] = LLMSystemMessage(content=f"{prev.content}\n\n{msg.content}")
            elif (joined := merge_user_messages(prev, msg)) is not None:
                prev = merged[-1] = joined
            else:
                merged.append(msg)
                prev = msg
        return merged

    def flat(self) -> list[BaseLLMMessage]:
        """The entries flattened into one new list, nothing merged (`to_list` merges)."""
        flat: list[BaseLLMMessage] = []
        append = flat.append
        for entry in self.root:
            if isinstance(entry, list):
                flat += entry
            else:
                append(entry)
        return flat


def call_ids_of(msgs: Iterable[BaseLLMMessage]) -> set[str]:
    """The ids of every tool call the assistant messages of `msgs` make."""
    return {call.id for msg in msgs if isinstance(msg, LLMAssistantMessage) for call in msg.tool_calls}


def merge_user_messages(prev: object, msg: object) -> LLMUserMessage | None:
    """Two adjacent user messages as one, when they carry the same thing (both plain turns, or attachments
    of the same result, from the same speaker); None when they must stay apart. Used by `to_list` and by
    the provider layer's normalization, so both merge by one rule."""
    if not (
        isinstance(prev, LLMUserMessage)
        and isinstance(msg, LLMUserMessage)
        and prev.attachment_of == msg.attachment_of
        and prev.name == msg.name
    ):
        return None
    return replace(prev, content=_parts(prev.content) + _parts(msg.content))


def _parts(content: str | list[MsgPart]) -> list[MsgPart]:
    return [TextUserMsgPart(text=content)] if isinstance(content, str) else list(content)
