"""What the provider adapters share to write requests and read replies: labels for what an API has no
role for, and the small conversions every adapter makes."""

from __future__ import annotations

from typing import Any

from tfrobot.schema.message.llms.llm_requests import LLMAssistantMessage


def clean_nones(value: Any) -> Any:
    """`value` without None entries, recursively: the raw usage we keep, identical streamed or not."""
    if isinstance(value, dict):
        return {k: clean_nones(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [clean_nones(v) for v in value]
    return value


def provider_of(model_tag: str | None) -> str | None:
    """'openai' of 'openai:gpt-4o'; None when unknown."""
    return model_tag.split(":", 1)[0] if model_tag else None


def as_dict(raw: Any) -> dict[str, Any]:
    """An SDK response object (pydantic) or an already-decoded dict, as a dict with the keys the provider
    sent and no others (`exclude_unset`: the SDK's defaults for absent fields are not added), under the names
    the provider sent (`by_alias`: the SDK calls a key that is a Python keyword `from_`), so that a block kept
    for replay goes back exactly as it came. A block type newer than the SDK is kept by the SDK
    in another block class with its fields as extras, which dump right but make pydantic warn that the
    value does not fit the declared union: expected here, so not warned about."""
    if isinstance(raw, dict):
        return raw
    dumped: dict[str, Any] = raw.model_dump(exclude_unset=True, by_alias=True, warnings=False)
    return dumped


def assistant_text(msg: LLMAssistantMessage) -> str | None:
    """What the assistant said, for APIs without a refusal field: its text, and its refusal after it."""
    if msg.refusal is None:
        return msg.content
    return f"{msg.content}\n\n{msg.refusal}" if msg.content else msg.refusal


CONSOLE_LABEL = "[TFL console output]"
"""First line of console output sent as user text: no provider has a console role (seed: 降级)."""
SYSTEM_LABEL = "[system]"
"""First line of a system message in the middle of a conversation, sent as user text where needed."""


def attachment_label(owner: str, is_call: bool) -> str:
    """The text that introduces media returned by a tool call or a console run, so the model links them."""
    return f"[attachments of the result of tool call {owner}]" if is_call else "[attachments of the console output]"


def move_to_extra_body(request: dict[str, Any], native: frozenset[str]) -> dict[str, Any]:
    """`request` with every key its SDK's create call does not take (`native` are those it does) moved
    into `extra_body`, which the SDK sends as part of the JSON body: vendor parameters reach the API."""
    extra = {key: request.pop(key) for key in list(request) if key not in native}
    if extra:
        request["extra_body"] = {**request.get("extra_body", {}), **extra}
    return request
