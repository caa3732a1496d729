"""Review R20 (outside review of #18): a union of message classes written by `written_by_own_class`.

The base (4f0ccfc) wrote `None` in a union of two message classes (`UserAndAssMsg`, `TextMessage |
AssistantTextMessage`) as `null`, silently; a user model often declares such a field with a `None` default
(pydantic does not validate defaults). On the branch each choice's plain serializer refuses `None`, so the
union warns for every such record and `warnings="error"` (the server's action results) refuses it.
"""

from __future__ import annotations

import warnings

from pydantic import BaseModel, TypeAdapter

from tfrobot.schema.message import AssistantTextMessage, TextMessage, UserAndAssMsg


class _Turn(BaseModel):
    reply: UserAndAssMsg = None  # type: ignore[assignment]  # an unvalidated default, as users write it
    pair: TextMessage | AssistantTextMessage = None  # type: ignore[assignment]


def test_none_in_a_union_of_message_classes_is_written_silently() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _Turn().model_dump_json() == '{"reply":null,"pair":null}'
        assert _Turn().model_dump() == {"reply": None, "pair": None}


def test_none_in_a_union_of_message_classes_passes_warnings_error() -> None:
    assert _Turn().model_dump_json(warnings="error") == '{"reply":null,"pair":null}'
    assert TypeAdapter(TextMessage | AssistantTextMessage).dump_json(None, warnings="error") == b"null"


def test_none_for_a_single_message_class_is_silent() -> None:
    """Holds on the branch (as on the base): a single class's field writes None without a word."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert TypeAdapter(TextMessage).dump_json(None, warnings="error") == b"null"
