"""Typed streaming deltas and the assembler that turns them into the same message a plain call returns.

Every adapter maps its provider's stream events to these few delta kinds; `MessageAssembler` is shared,
so a streamed reply and a non-streamed one are built by the same rules (tested to be equal).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from tfrobot.schema.message.conversation.message_dto import AssistantRefusalMessage, AssistantTextMessage
from tfrobot.schema.message.llms.llm_response import ReasoningBlock, ServerToolBlock, Usage
from tfrobot.schema.message.tool_call import ToolCall


class _Delta(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class TextDelta(_Delta):
    """A piece of the reply text."""

    type: Literal["text"] = "text"
    text: str


class RefusalDelta(_Delta):
    """A piece of the model's refusal (OpenAI streams `refusal` apart from the content)."""

    type: Literal["refusal"] = "refusal"
    text: str


class ServerToolBlockDelta(_Delta):
    """One whole block the provider executed on its side (a server tool call or its result), or a cited text
    block (`type: text`, right after its text's deltas), once complete; the assembler records where in the text
    it came (`ServerToolBlock.text_offset`: for a text block, where its text starts)."""

    type: Literal["server_tool_block"] = "server_tool_block"
    provider: str
    block: dict[str, JsonValue]
    index: int | None = None
    """The adapter's number for the block, when a later delta may bring its final bytes: a delta with an index
    seen before replaces that block where it stands (OpenAI Responses: an item announced by `output_item.added`
    takes the bytes of the final response, which a plain call returns)."""
    text: str | None = None
    """Set for a text item kept whole (`AssistantTextMessage.text_blocks`: a Responses message with a `phase` or
    citations): its text, which came in text deltas just before it."""


class ReasoningDelta(_Delta):
    """A piece of plain reasoning text (`reasoning_content`: DeepSeek, Zhipu, Doubao)."""

    type: Literal["reasoning"] = "reasoning"
    text: str


class ReasoningBlockDelta(_Delta):
    """A piece of a native reasoning block; `index` tells blocks apart, the signature may come last."""

    type: Literal["reasoning_block"] = "reasoning_block"
    index: int
    block_type: Literal["thinking", "redacted_thinking"] = "thinking"
    text: str = ""
    signature: str | None = None
    data: str | None = None
    provider: str
    raw: bool = False
    """The text is the model's raw reasoning, not a summary of it (OpenAI Responses: `reasoning_text` content,
    gpt-oss), kept as the block's `raw` so that it goes back where it came from."""
    item_id: str | None = None
    """The provider's id of the item the block belongs to, kept as the block's `id` (OpenAI Responses: a
    reasoning item's summary parts are blocks of one id, replayed as that one item); such a block also keeps
    how many server-side blocks came before it (`server_offset`), to be replayed between them in order."""


class ToolCallDelta(_Delta):
    """A piece of one tool call: the first delta of an `index` brings id and name, later ones arguments."""

    type: Literal["tool_call"] = "tool_call"
    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


class TFLScriptDelta(_Delta):
    """A whole TFL script the assistant wrote (scripted and DSL-aware models)."""

    type: Literal["tfl_script"] = "tfl_script"
    script: str


class FinishDelta(_Delta):
    """End of the reply: why it stopped, the usage and the model, when the provider says."""

    type: Literal["finish"] = "finish"
    finish_reason: str | None = None
    usage: Usage | None = None
    model: str | None = None


StreamDelta: TypeAlias = Annotated[
    TextDelta
    | RefusalDelta
    | ReasoningDelta
    | ReasoningBlockDelta
    | ServerToolBlockDelta
    | ToolCallDelta
    | TFLScriptDelta
    | FinishDelta,
    Field(discriminator="type"),
]
"""Any streaming delta, dispatched on `type`."""


def reply_message(refusal: str | None, **fields: Any) -> AssistantTextMessage:
    """The message of one reply: an `AssistantRefusalMessage` when the provider refused (`refusal`), else an
    `AssistantTextMessage`; the same for a streamed reply and a plain one."""
    if refusal is not None:
        return AssistantRefusalMessage(refusal=refusal, **fields)
    return AssistantTextMessage(**fields)


def reasoning_text(blocks: list[ReasoningBlock]) -> str | None:
    """The display text of native reasoning blocks (`reasoning_content` of providers that send blocks)."""
    return "\n\n".join(b.text for b in blocks if b.text) or None


class MessageAssembler:
    """Accumulates deltas; `message()` returns the `AssistantTextMessage` they add up to."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._text_len = 0
        self._refusal: list[str] = []
        self._server: list[ServerToolBlock] = []
        self._texts: list[ServerToolBlock] = []
        self._server_at: dict[int, int] = {}
        self._reasoning: list[str] = []
        self._blocks: dict[int, dict[str, object]] = {}
        self._calls: dict[int, dict[str, str]] = {}
        self._scripts: list[str] = []
        self._finish: FinishDelta | None = None

    def add(self, delta: StreamDelta) -> None:
        """Fold one delta in."""
        match delta:
            case TextDelta():
                self._text.append(delta.text)
                self._text_len += len(delta.text)
            case RefusalDelta():
                self._refusal.append(delta.text)
            case ServerToolBlockDelta() if delta.text is not None:
                offset = self._text_len - len(delta.text)
                self._texts.append(ServerToolBlock(provider=delta.provider, block=delta.block, text_offset=offset))
            case ServerToolBlockDelta() if delta.index in self._server_at:
                at = self._server_at[delta.index]
                kept = self._server[at]
                self._server[at] = ServerToolBlock(
                    provider=kept.provider, block=delta.block, text_offset=kept.text_offset
                )
            case ServerToolBlockDelta():
                offset = self._text_len
                if delta.block.get("type") == "text":  # a cited text block, complete: its text came just before
                    offset -= len(str(delta.block.get("text") or ""))
                if delta.index is not None:
                    self._server_at[delta.index] = len(self._server)
                self._server.append(ServerToolBlock(provider=delta.provider, block=delta.block, text_offset=offset))
            case ReasoningDelta():
                self._reasoning.append(delta.text)
            case ReasoningBlockDelta():
                block = self._blocks.get(delta.index)
                if block is None:
                    block = self._blocks[delta.index] = {
                        "type": delta.block_type,
                        "text": "",
                        "provider": delta.provider,
                    }
                    if delta.item_id is not None:  # an item among others: where it came among the server blocks
                        block["server_offset"] = len(self._server)
                block["text"] = f"{block['text']}{delta.text}"
                if delta.signature is not None:
                    block["signature"] = delta.signature
                if delta.data is not None:
                    block["data"] = delta.data
                if delta.item_id is not None:
                    block["id"] = delta.item_id
                if delta.raw:
                    block["raw"] = True
            case ToolCallDelta():
                call = self._calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
                call["id"] = delta.id or call["id"]
                call["name"] = delta.name or call["name"]
                call["arguments"] += delta.arguments
            case TFLScriptDelta():
                self._scripts.append(delta.script)
            case FinishDelta():
                self._finish = delta

    def message(self) -> AssistantTextMessage:
        """The assembled reply."""
        blocks = [ReasoningBlock.model_validate(self._blocks[i]) for i in sorted(self._blocks)]
        calls = [
            ToolCall(id=c["id"], name=c["name"], arguments=c["arguments"] or "{}")
            for _, c in sorted(self._calls.items())
        ]
        finish = self._finish or FinishDelta()
        return reply_message(
            "".join(self._refusal) or None,
            content="".join(self._text),
            reasoning_content="".join(self._reasoning) or reasoning_text(blocks),
            reasoning_blocks=blocks,
            server_tool_blocks=self._server,
            text_blocks=self._texts,
            tool_calls=calls or None,
            tfl_scripts=self._scripts or None,
            finish_reason=finish.finish_reason,
            usage=finish.usage,
            model=finish.model,
        )
