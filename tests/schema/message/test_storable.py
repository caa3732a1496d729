"""Property: a message validates from Python data exactly when it can be stored (issue #14, defect 8).

Python text can hold lone UTF-16 surrogates (`errors="surrogateescape"`, `json.loads('"\\ud800"')`), which
UTF-8 JSON cannot: such a message used to validate and fail only in `model_dump_json` at storage time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from tfrobot.schema.message import AssistantTextMessage, Message, TextMessage

MESSAGE = TypeAdapter(Message)
SURROGATE = re.compile("[\ud800-\udfff]")

# Text that may hold anything a Python str can: letters, digits, spaces, emoji, and lone surrogates (`Cs`).
any_text = st.text(alphabet=st.characters(codec=None, categories=("Cs", "L", "N", "Zs", "So")), max_size=12)

# Where a text can sit in a stored record: every kind of place (a field, a nested model, a trace record, a
# metadata value, a key, an unknown field kept for a newer version).
PLACES: dict[str, Callable[[str], dict[str, Any]]] = {
    "content": lambda t: {"role": "user", "msg_type": "text", "content": t},
    "reasoning": lambda t: {"role": "assistant", "msg_type": "text", "reasoning_content": t},
    "refusal": lambda t: {"role": "assistant", "msg_type": "refusal", "refusal": t},
    "tool arguments": lambda t: {
        "role": "assistant",
        "msg_type": "text",
        "tool_calls": [{"id": "c1", "name": "weather", "arguments": t}],
    },
    "tool result": lambda t: {"role": "tool", "tool_reses": [{"call_id": "c1", "result": t}]},
    "creator name": lambda t: {"role": "user", "msg_type": "text", "content": "hi", "creator": {"uid": "u", "name": t}},
    "trace record": lambda t: {
        "role": "user",
        "msg_type": "text",
        "content": "hi",
        "intermediate_trace": {"records": [{"role": "console", "console_reses": [{"result": t}]}]},
    },
    "metadata value": lambda t: {"role": "system", "content": "s", "additional_kwargs": {"note": t}},
    "metadata key": lambda t: {"role": "system", "content": "s", "additional_kwargs": {t or "k": 1}},
    "unknown field": lambda t: {"role": "user", "msg_type": "hologram", "content": {"frames": [t]}},
}


@settings(max_examples=200, deadline=None)
@given(place=st.sampled_from(sorted(PLACES)), text=any_text)
def test_a_message_validates_from_python_data_exactly_when_it_can_be_stored(place: str, text: str) -> None:
    record = PLACES[place](text)
    if SURROGATE.search(text):
        with pytest.raises(ValidationError, match=r"lone UTF-16 surrogate U\+D[89A-F][0-9A-F]{2} at index \d+.*Fix:"):
            MESSAGE.validate_python(record)
        return
    msg = MESSAGE.validate_python(record)
    again = MESSAGE.validate_json(msg.model_dump_json())  # storable, and restored as itself
    assert type(again) is type(msg)
    assert again == msg


def test_the_refusal_names_the_place_the_character_and_the_fix() -> None:
    with pytest.raises(ValidationError) as caught:
        AssistantTextMessage(content="fine", tool_calls=[{"id": "c1", "name": "f", "arguments": '{"x": "\udc80"}'}])
    text = str(caught.value)
    assert "tool_calls[0].arguments holds a lone UTF-16 surrogate U+DC80 at index 7" in text
    assert "errors='replace'" in text


def test_a_surrogate_pair_is_text_and_is_stored() -> None:
    msg = TextMessage(content="ok \U0001f600 " + "\ud83d\ude00".encode("utf-16", "surrogatepass").decode("utf-16"))
    assert MESSAGE.validate_json(msg.model_dump_json()) == msg
