"""Tool calls: arguments parsed exactly as `json.loads` parses them, malformed ones named."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfrobot.schema.message import ToolCall
from tfrobot.schema.message.tool_call import _loads

_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=8,
)
_around = st.sampled_from(["", " ", "\n\t", "x", "}", "1", " {}"])
_texts = st.builds(lambda before, value, after: before + json.dumps(value) + after, _around, _values, _around)


def _outcome(loads: Callable[[str], Any], text: str) -> object:
    try:
        return "value", loads(text)
    except json.JSONDecodeError as exc:
        return "error", exc.msg, exc.pos


@settings(max_examples=1000, deadline=None)
@given(st.one_of(_texts, st.text(max_size=12)))
def test_arguments_decode_as_json_loads_decodes_them(text: str) -> None:
    assert _outcome(_loads, text) == _outcome(json.loads, text)


def test_parsed_arguments_names_the_call_of_malformed_arguments() -> None:
    assert ToolCall(id="c", name="f", arguments=' {"a": 1}\n').parsed_arguments() == {"a": 1}
    assert ToolCall(id="c", name="f", arguments="").parsed_arguments() == {}
    with pytest.raises(ValueError, match=r"tool call c \(f\): arguments are not valid JSON: Extra data"):
        ToolCall(id="c", name="f", arguments='{"a": 1}}').parsed_arguments()
    with pytest.raises(ValueError, match=r"tool call c \(f\): arguments must be a JSON object, got \[1\]"):
        ToolCall(id="c", name="f", arguments="[1]").parsed_arguments()


def test_arguments_object_keeps_malformed_arguments_as_text() -> None:
    assert ToolCall(id="c", name="f", arguments='{"a": 1}').arguments_object() == {"a": 1}
    assert ToolCall(id="c", name="f", arguments='{"a": ').arguments_object() == {"_raw_arguments": '{"a": '}
    assert ToolCall(id="c", name="f", arguments="[1]").arguments_object() == {"_raw_arguments": "[1]"}
