"""Structured output: a reply constrained to a Pydantic model's JSON schema, validated into that model.

`generate_structured(llm, Model, question)` asks the provider for JSON that follows `Model`'s schema in the
provider's own way (`ChatLLM.response_format`) and validates the reply's text into a `Model`. A reply that
does not validate (or a refusal) is a `StructuredOutputError` that keeps the raw text and the whole reply:
nothing the model said is lost. A reply that calls tools instead has no output yet (`output` is None): run
the calls and ask again, as any tool loop does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from tfrobot.brain.chain.llms.chat_llm import ChatLLM
from tfrobot.brain.chain.llms.errors import LLMError
from tfrobot.brain.chain.llms.output_schema import OutputSchema
from tfrobot.schema.message.base import BaseMessage
from tfrobot.schema.message.conversation.message_dto import AssistantRefusalMessage, AssistantTextMessage
from tfrobot.schema.tool_definition import ToolDefinition

OutputT = TypeVar("OutputT", bound=BaseModel)


class StructuredOutputError(LLMError):
    """The reply is not a valid instance of the requested model; `raw` is its text, `reply` the message."""

    kind: ClassVar[str] = "bad_response"

    def __init__(self, output: type[BaseModel], reply: AssistantTextMessage, reason: str) -> None:
        self.output = output
        self.reply = reply
        self.raw = reply.refusal if isinstance(reply, AssistantRefusalMessage) else reply.content
        super().__init__(
            f"the reply of {reply.model or 'the model'} is not a valid {output.__name__}: {reason}; "
            f"its raw text ({len(self.raw)} characters) is kept in `.raw`: {self.raw[:200]!r}"
        )

    @property
    def fix(self) -> str | None:
        return (
            f"retry the call, or loosen {self.output.__name__}'s schema; the raw text is `.raw`, the whole reply "
            "`.reply` (store it in the conversation if the answer matters)"
        )


@dataclass(frozen=True, slots=True)
class StructuredReply(Generic[OutputT]):
    """The validated output (None when the model called tools instead) and the reply it came in."""

    output: OutputT | None
    message: AssistantTextMessage


def parse_structured(reply: AssistantTextMessage, output: type[OutputT]) -> OutputT:
    """`reply`'s text validated as `output`; `StructuredOutputError` (raw text kept) when it is not one."""
    if isinstance(reply, AssistantRefusalMessage):
        raise StructuredOutputError(output, reply, "the model refused")
    try:
        return output.model_validate_json(reply.content)
    except ValidationError as exc:
        reasons = "; ".join(f"{'.'.join(map(str, e['loc'])) or '$'}: {e['msg']}" for e in exc.errors()[:5])
        raise StructuredOutputError(output, reply, reasons) from exc


def structured_options(llm: ChatLLM, output: type[BaseModel] | OutputSchema) -> dict[str, Any]:
    """The call options that constrain `llm`'s reply to `output`'s schema (merged over `extra_params`)."""
    schema = output if isinstance(output, OutputSchema) else OutputSchema.of(output)
    return llm.response_format(schema)


def generate_structured(
    llm: ChatLLM,
    output: type[OutputT],
    current_input: BaseMessage,
    conversation: Sequence[BaseMessage] | None = None,
    tools: Sequence[ToolDefinition] | None = None,
    **options: Any,
) -> StructuredReply[OutputT]:
    """One call whose reply follows `output`'s schema, validated into an `output` (see the module docstring)."""
    reply = llm.generate(current_input, conversation, tools, **{**options, **structured_options(llm, output)})
    return _structured(reply, output)


async def agenerate_structured(
    llm: ChatLLM,
    output: type[OutputT],
    current_input: BaseMessage,
    conversation: Sequence[BaseMessage] | None = None,
    tools: Sequence[ToolDefinition] | None = None,
    **options: Any,
) -> StructuredReply[OutputT]:
    """`generate_structured` on the SDK's async client."""
    reply = await llm.agenerate(current_input, conversation, tools, **{**options, **structured_options(llm, output)})
    return _structured(reply, output)


def _structured(reply: AssistantTextMessage, output: type[OutputT]) -> StructuredReply[OutputT]:
    if reply.tool_calls:  # (any text beside the calls is the model thinking aloud, not the answer yet)
        return StructuredReply(None, reply)
    return StructuredReply(parse_structured(reply, output), reply)
