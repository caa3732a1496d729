"""What the TFL interpreter prints back: neither a tool result nor assistant text."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tfrobot.schema.message.msg_part import MsgPart
from tfrobot.schema.omission import IS_EMPTY, IS_NONE
from tfrobot.schema.types import AttributeValue


class ConsoleResult(BaseModel):
    """The console echo of one TFL script run (seed: "DSL 解释器执行后的「控制台回显」")."""

    # Bytes as base64, as in a message: a subclass's `bytes` field holding binary data is stored, not refused as UTF-8.
    model_config = ConfigDict(extra="allow", ser_json_bytes="base64", val_json_bytes="base64", defer_build=True)

    result: str = Field(default="", description="Full console output, as the LLM should read it.")
    summary_result: str | None = Field(
        default=None, exclude_if=IS_NONE, description="Short form for long outputs and UI lists."
    )
    attachments: list[MsgPart] = Field(
        default_factory=list, exclude_if=IS_EMPTY, description="Media the script attached to its output."
    )
    script: str | None = Field(
        default=None, exclude_if=IS_NONE, description="The TFL source that produced this output."
    )
    trace_meta: dict[str, AttributeValue] | None = Field(
        default=None, exclude_if=IS_NONE, description="Interpreter facts: steps used, duration, error position."
    )
