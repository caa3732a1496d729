"""Review R20 (outside review of #18): a message whose kind is not its class's, made by `model_copy(update=...)`.

The branch refuses `msg.role = ...` / `msg.msg_type = ...` (`BaseMessage.__setattr__`), and dropped the
union's check of the chosen class's fields. `model_copy(update=...)` does not go through `__setattr__`: the
copy keeps its class with another kind, is written without a word (the base warned, and refused under
`warnings="error"`, the server's action results), and its record loads as another class or not at all.
"""

from __future__ import annotations

import warnings

import pytest
from pydantic import TypeAdapter
from pydantic_core import PydanticSerializationError

from tfrobot.schema.message import BaseMessage, TextMessage

_LIST = TypeAdapter(list[BaseMessage])


def _text() -> TextMessage:
    return TextMessage(content="a", create_ts=1, msg_id="m")


@pytest.mark.parametrize("update", [{"role": "assistant"}, {"msg_type": "image"}], ids=["role", "msg_type"])
def test_a_copy_with_another_kind_is_refused_or_reported(update: dict[str, str]) -> None:
    try:
        forged = _text().model_copy(update=update)
    except (TypeError, ValueError):
        return  # refused at the copy, as an assignment is: fine
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _LIST.dump_json([forged])
    assert caught, "a message of one class with another class's kind was written without a warning"


def test_a_copy_with_another_role_fails_under_warnings_error() -> None:
    try:
        forged = _text().model_copy(update={"role": "assistant"})
    except (TypeError, ValueError):
        return
    with pytest.raises(PydanticSerializationError):
        _LIST.dump_json([forged], warnings="error")
