"""The concrete message classes: nine user kinds and the assistant's text message (seed: "子类分布").

Each class fixes `role` and `msg_type` with literals, which is all it takes to join every message union:
there is no list of classes to edit (see `tfrobot.schema.message.discriminator`). `Message` and
`UserAndAssMsg` are the names the seed gives those unions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Annotated, Any, ClassVar, Literal, TypeAlias

from pydantic import (
    AnyUrl,
    Field,
    GetCoreSchemaHandler,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_serializer,
)
from pydantic_core import CoreSchema, core_schema

from tfrobot.schema.message.base import BaseMessage, content_text
from tfrobot.schema.message.conversation.trace import IntermediateTrace
from tfrobot.schema.message.discriminator import DEFAULT_TAG, DISPATCH, get_discriminator_value
from tfrobot.schema.message.llms.llm_requests import LLMAssistantMessage, LLMUserMessage
from tfrobot.schema.message.llms.llm_response import ReasoningBlock, ServerToolBlock, Usage
from tfrobot.schema.message.msg_part import (
    AudioUserMsgPart,
    FileUserMsgPart,
    ImageUserMsgPart,
    MsgPart,
    TextUserMsgPart,
    VideoUserMsgPart,
)
from tfrobot.schema.omission import IS_EMPTY, IS_NONE
from tfrobot.schema.users import BaseUser

__all__ = [
    "DEFAULT_TAG",
    "AssistantMessage",
    "AssistantRefusalMessage",
    "AssistantTextMessage",
    "AttachmentMessage",
    "AudioMessage",
    "ContactMessage",
    "HistoryMessage",
    "ImageMessage",
    "Message",
    "MultiPartMessage",
    "TextMessage",
    "UrlMessage",
    "UserAndAssMsg",
    "UserMessage",
    "VideoMessage",
    "get_discriminator_value",
    "non_messages",
]


def _no_trace(trace: IntermediateTrace) -> bool:
    """Whether a user message's trace is empty (no records, no failure), as a fresh one is."""
    return not trace.records and trace.failure is None


class UserMessage(BaseMessage):
    """Base of the user kinds. Carries the turn's trace; on its own it cannot become an LLM request."""

    role: Literal["user"] = "user"
    # Base fields no user message holds: read as None, not fields (`never_held.py`).
    tool_calls: ClassVar[None] = None  # type: ignore[misc]
    tool_reses: ClassVar[None] = None  # type: ignore[misc]
    function_call: ClassVar[None] = None  # type: ignore[misc]
    function_res: ClassVar[None] = None  # type: ignore[misc]
    console_reses: ClassVar[None] = None  # type: ignore[misc]
    tfl_scripts: ClassVar[None] = None  # type: ignore[misc]
    intermediate_trace: IntermediateTrace = Field(
        default_factory=IntermediateTrace,
        exclude_if=_no_trace,
        description="Inner messages of the turn this message started.",
    )

    def _llm_user(self, content: str | list[MsgPart]) -> LLMUserMessage:
        creator = self.creator
        return LLMUserMessage(content, None if creator is None else creator.name)


class TextMessage(UserMessage):
    """Plain text from the user."""

    msg_type: Literal["text"] = "text"
    content: str

    def to_llm_request(self) -> LLMUserMessage:
        creator = self.creator  # (fields by position, here and below: see the `llm_requests` docstring)
        return LLMUserMessage(self.content, None if creator is None else creator.name)


class ImageMessage(UserMessage):
    """A single image sent on its own."""

    msg_type: Literal["image"] = "image"
    content: ImageUserMsgPart

    def to_llm_request(self) -> LLMUserMessage:
        return self._llm_user([self.content])


class AudioMessage(UserMessage):
    """A voice message or audio clip."""

    msg_type: Literal["audio"] = "audio"
    content: AudioUserMsgPart

    def to_llm_request(self) -> LLMUserMessage:
        return self._llm_user([self.content])


class VideoMessage(UserMessage):
    """A video clip."""

    msg_type: Literal["video"] = "video"
    content: VideoUserMsgPart

    def to_llm_request(self) -> LLMUserMessage:
        return self._llm_user([self.content])


class AttachmentMessage(UserMessage):
    """A file: a PDF or any other document."""

    msg_type: Literal["attachment"] = "attachment"
    content: FileUserMsgPart

    def to_llm_request(self) -> LLMUserMessage:
        return self._llm_user([self.content])


class ContactMessage(UserMessage):
    """A contact card shared in the chat."""

    msg_type: Literal["contact"] = "contact"
    content: BaseUser

    def to_llm_request(self) -> LLMUserMessage:
        return self._llm_user(f"[shared contact] {content_text(self.content)}")


class UrlMessage(UserMessage):
    """A shared link, with the title and summary the platform showed, if any."""

    msg_type: Literal["url"] = "url"
    content: AnyUrl
    title: str | None = Field(default=None, exclude_if=IS_NONE)
    description: str | None = Field(default=None, exclude_if=IS_NONE)

    def to_llm_request(self) -> LLMUserMessage:
        lines = [f"[shared link] {self.content}"]
        lines.extend(text for text in (self.title, self.description) if text)
        return self._llm_user("\n".join(lines))


class HistoryMessage(UserMessage):
    """A forwarded piece of another conversation: its messages, nested."""

    msg_type: Literal["history"] = "history"
    content: Sequence[BaseMessage]

    def to_llm_request(self) -> LLMUserMessage:
        parts: list[MsgPart] = [TextUserMsgPart(text="[forwarded conversation]")]
        parts.extend(_history_parts(self.content))
        return self._llm_user(parts)


class MultiPartMessage(UserMessage):
    """Text and media mixed in one message, in order."""

    msg_type: Literal["multipart"] = "multipart"
    content: list[MsgPart]

    def to_llm_request(self) -> LLMUserMessage:
        return self._llm_user(list(self.content))


class AssistantMessage(BaseMessage):
    """Base of the assistant kinds; on its own it cannot become an LLM request."""

    role: Literal["assistant"] = "assistant"
    # Base fields no assistant message holds: results come from tools and the interpreter (`never_held.py`).
    tool_reses: ClassVar[None] = None  # type: ignore[misc]
    function_res: ClassVar[None] = None  # type: ignore[misc]
    console_reses: ClassVar[None] = None  # type: ignore[misc]


def _shared_block(text: str | None, blocks: list[ReasoningBlock]) -> int | None:
    """The index of the one block with text, when it is a thinking block whose text is all of `text`."""
    if not text:
        return None
    found = None
    for index, block in enumerate(blocks):
        if block.text:
            if found is not None:
                return None
            found = index
    if found is None:
        return None
    block = blocks[found]
    return found if block.type == "thinking" and block.text == text else None


def _text_from_record(blocks: list[ReasoningBlock], info: ValidationInfo) -> list[ReasoningBlock]:
    """JSON input: a thinking block without `text` is the one `_reasoning_once` wrote without it."""
    text = info.data.get("reasoning_content")
    if text:
        for block in blocks:
            fields_set = block.__pydantic_fields_set__
            if block.type == "thinking" and "text" not in fields_set:
                # What `block.text = text` does, without pydantic's `__setattr__` (a fifth of this function)
                block.__dict__["text"] = text
                fields_set.add("text")
                break
    return blocks


def _text_from_python(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    """Python input: only a block given as a dict without `text` (a stored record read as Python data) is that
    block; a `ReasoningBlock` built without text (a Gemini thought signature) keeps its empty text."""
    blocks = handler(value)
    text = info.data.get("reasoning_content")
    if text and isinstance(value, list):
        for raw, block in zip(value, blocks, strict=True):
            if isinstance(raw, dict) and "text" not in raw and block.type == "thinking":
                block.text = text
                break
    return blocks


class _SharedText:
    """Gives the thinking block stored without `text` (see `_reasoning_once`) the `reasoning_content`, which
    is validated before it. Records written before always had the key, so they load as they were.

    JSON input is checked after validation, on the blocks (a missing key leaves `text` out of the block's
    `model_fields_set`): looking at the raw input would make pydantic-core convert it to Python first."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        blocks = handler(source)
        return core_schema.json_or_python_schema(
            json_schema=core_schema.with_info_after_validator_function(_text_from_record, blocks),
            python_schema=core_schema.with_info_wrap_validator_function(_text_from_python, blocks),
        )


class AssistantTextMessage(AssistantMessage):
    """The LLM's reply: text, reasoning, tool calls and TFL scripts, with what the provider reported."""

    msg_type: Literal["text"] = "text"
    content: str = Field(default="", exclude_if=IS_EMPTY)
    reasoning_content: str | None = Field(
        default=None, exclude_if=IS_NONE, description="Reasoning text (DeepSeek, Doubao, display)."
    )
    reasoning_blocks: Annotated[list[ReasoningBlock], _SharedText] = Field(
        default_factory=list,
        exclude_if=IS_EMPTY,
        description="Native reasoning blocks with signatures, for replay to their provider. In JSON, the text of "
        "the one block that holds all of `reasoning_content` is left out (`_reasoning_once`).",
    )
    server_tool_blocks: list[ServerToolBlock] = Field(
        default_factory=list,
        exclude_if=IS_EMPTY,  # (came after v1: a reply without any is stored exactly as v1 stored it)
        description="Tool calls and results the provider executed on its side (web search, code execution, MCP), "
        "kept for replay to that provider; never executed by us.",
    )
    text_blocks: list[ServerToolBlock] = Field(
        default_factory=list,
        exclude_if=IS_EMPTY,  # (came later: a reply without any is stored as before)
        description="The provider's text items kept whole where they carry more than their text (a Responses "
        "message's `phase`, its `url_citation` annotations), each where its text starts in `content` (which holds "
        "it too), replayed to that provider as it came.",
    )
    finish_reason: str | None = Field(
        default=None, exclude_if=IS_NONE, description="Why generation stopped, normalized."
    )
    usage: Usage | None = Field(
        default=None, exclude_if=IS_NONE, description="Token usage of the call that produced it."
    )
    model: str | None = Field(
        default=None, exclude_if=IS_NONE, description="Provider and model that answered, e.g. 'openai:gpt-4o'."
    )

    @field_serializer("reasoning_blocks", mode="wrap", when_used="json")
    def _reasoning_once(self, blocks: list[ReasoningBlock], handler: SerializerFunctionWrapHandler) -> Any:
        """Store the reasoning text once: when one thinking block holds all of it and `reasoning_content` is
        that text (a reply from Anthropic or Gemini), the block is written without its `text`, which
        `_SharedText` restores from `reasoning_content` on load. Every other block keeps its `text`, even an
        empty one, so a block without the key can only be this one."""
        dumped = handler(blocks)
        shared = _shared_block(self.reasoning_content, blocks)
        if shared is not None:
            del dumped[shared]["text"]
        return dumped

    def to_llm_request(self) -> LLMAssistantMessage:
        fields = self.__dict__  # (one attribute read, then dict lookups: this runs for every reply of every request)
        content = fields["content"]
        scripts = fields["tfl_scripts"]
        if scripts:
            for script in scripts:
                if script not in content:
                    content = f"{content}\n```tfl\n{script}\n```" if content else f"```tfl\n{script}\n```"
        calls, blocks, server = fields["tool_calls"], fields["reasoning_blocks"], fields["server_tool_blocks"]
        texts = fields["text_blocks"]
        if server or texts:
            return LLMAssistantMessage(  # content, tool_calls, reasoning_content, reasoning_blocks, model, refusal, …
                content or None,
                list(calls) if calls else [],
                fields["reasoning_content"],
                list(blocks) if blocks else [],
                fields["model"],
                None,
                tuple(server),
                tuple(texts),
            )
        return LLMAssistantMessage(  # (the usual reply: the fields after `model` keep their defaults)
            content or None,
            list(calls) if calls else [],
            fields["reasoning_content"],
            list(blocks) if blocks else [],
            fields["model"],
        )


class AssistantRefusalMessage(AssistantTextMessage):
    """A reply in which the model refused to answer: OpenAI's `refusal` (content null, finish reason `stop` on
    the wire), or Anthropic's `refusal` stop. `finish_reason` is 'refusal'.

    Its own kind rather than a field of every reply: the refusal is never mistaken for an answer, nor dropped
    as an empty one, and the replies that did answer carry no extra field (every field of a message costs
    each request that reads the conversation back)."""

    msg_type: Literal["refusal"] = "refusal"  # type: ignore[assignment]  # (a kind of its own: its own tag)
    refusal: str = Field(
        description="The refusal as the provider gave it: the model's words (OpenAI) or the explanation of the "
        "refusal stop (Anthropic)."
    )
    finish_reason: str | None = Field(default="refusal", description="Why generation stopped: 'refusal'.")

    def to_llm_request(self) -> LLMAssistantMessage:
        return replace(super().to_llm_request(), refusal=self.refusal)


def non_messages(msg: BaseMessage, path: str = "") -> Iterator[tuple[str, object]]:
    """Each place where `msg` holds a value that is no message where messages go (a record of its trace, a
    forwarded message), with its path (`intermediate_trace.records[2]`).

    Message unions are written by inference (`discriminator.py`), so such a value, which only code that bypasses
    validation can put there (`records.append(...)`), is written as it is, and the record would not load: the
    store asks this before it writes one."""
    if isinstance(msg, UserMessage):
        for index, record in enumerate(msg.intermediate_trace.records):
            where = f"{path}intermediate_trace.records[{index}]"
            if isinstance(record, BaseMessage):
                yield from non_messages(record, f"{where}.")
            else:
                yield where, record
    if isinstance(msg, HistoryMessage):
        for index, forwarded in enumerate(msg.content):
            where = f"{path}content[{index}]"
            if isinstance(forwarded, BaseMessage):
                yield from non_messages(forwarded, f"{where}.")
            else:
                yield where, forwarded


def _history_parts(messages: Sequence[BaseMessage]) -> list[MsgPart]:
    parts: list[MsgPart] = []
    for msg in messages:
        who = msg.creator.name or msg.creator.uid if msg.creator is not None else msg.role
        if isinstance(msg, HistoryMessage):
            parts.append(TextUserMsgPart(text=f"{who}: [forwarded conversation]"))
            parts.extend(_history_parts(msg.content))
        elif isinstance(msg, ImageMessage | AudioMessage | VideoMessage | AttachmentMessage):
            parts.extend((TextUserMsgPart(text=f"{who}:"), msg.content))
        elif isinstance(msg, MultiPartMessage):
            parts.append(TextUserMsgPart(text=f"{who}:"))
            parts.extend(msg.content)
        else:
            parts.append(TextUserMsgPart(text=f"{who}: {msg.text()}"))
    return parts


Message: TypeAlias = Annotated[BaseMessage, DISPATCH]
"""Any message, restored as its own class: the seed's `role:msg_type` union, built from the registry.

Equivalent to `BaseMessage` in any container or field; also right for a bare `TypeAdapter(Message)`."""

UserAndAssMsg: TypeAlias = Annotated[UserMessage | AssistantMessage, Field(description="A user or assistant message.")]
"""A user or assistant message, each restored as its own class."""
