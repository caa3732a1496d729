"""Tool calls that the assistant makes and the results that come back."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tfrobot.schema.message.msg_part import MsgPart
from tfrobot.schema.omission import IS_EMPTY, IS_NONE


class ToolCall(BaseModel):
    """One call of a tool requested by the LLM, kept exactly as the model produced it.

    `arguments` stays the raw JSON text: a model may emit malformed JSON, and the next request must be
    able to show it what it wrote.
    """

    model_config = ConfigDict(extra="allow", defer_build=True)

    id: str = Field(description="The provider's call id; tool results refer to it.")
    name: str = Field(description="Name of the tool to call.")
    arguments: str = Field(default="{}", description="JSON object text of the arguments, as generated.")
    type: Literal["function"] = "function"

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a dict; raises ValueError naming the call when they are not a JSON object."""
        try:
            value = _loads(self.arguments or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"tool call {self.id} ({self.name}): arguments are not valid JSON: {exc}") from exc
        if not isinstance(value, dict):
            raise ValueError(f"tool call {self.id} ({self.name}): arguments must be a JSON object, got {value!r}")
        return value

    def arguments_object(self) -> dict[str, Any]:
        """The arguments as the object some providers take (Anthropic `input`, Gemini `args`): malformed
        JSON is kept as `{"_raw_arguments": text}`, not dropped."""
        try:
            return self.parsed_arguments()
        except ValueError:
            return {"_raw_arguments": self.arguments}


_DECODER = json.JSONDecoder()


def _loads(text: str) -> Any:
    """`json.loads(text)`, in a third of the time when `text` is one JSON value and nothing around it (as
    models write arguments): `raw_decode` skips the two whitespace scans of `loads`, which cost more than
    decoding a small object. Anything else (surrounding whitespace, extra data, invalid JSON) goes through
    `json.loads`, so the result and the errors are those of `json.loads`."""
    try:
        value, end = _DECODER.raw_decode(text)
    except json.JSONDecodeError:
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


class ToolReturn(BaseModel):
    """The result of one tool call. `call_id` is required: a result the LLM cannot match is useless."""

    # Bytes as base64, as in a message: a subclass's `bytes` field holding binary data is stored, not refused as UTF-8.
    model_config = ConfigDict(extra="allow", ser_json_bytes="base64", val_json_bytes="base64", defer_build=True)

    call_id: str = Field(min_length=1, description="Id of the `ToolCall` this answers.")
    name: str | None = Field(default=None, exclude_if=IS_NONE, description="Name of the tool that ran.")
    result: str = Field(default="", description="What the LLM reads: text or JSON text.")
    attachments: list[MsgPart] = Field(
        default_factory=list, exclude_if=IS_EMPTY, description="Media the tool produced (images, files)."
    )
    is_error: bool = Field(
        default=False, exclude_if=IS_EMPTY, description="True when the tool raised or timed out; `result` says why."
    )


class FunctionCall(BaseModel):
    """OpenAI's legacy function call (superseded by `ToolCall`, kept to load old records)."""

    name: str
    arguments: str = "{}"


class FunctionReturn(BaseModel):
    """The result of a legacy function call."""

    name: str
    result: str = ""
