"""The size predictions never undercount: the sandbox refuses a result before building it only if the
prediction is at least the length Python would build, and stops counting past the limit it is given."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jinja2.utils import htmlsafe_json_dumps

from tfrobotserver.robot.factory.sandbox import BoundExceeded
from tfrobotserver.robot.factory.sandbox.budget import MAX_DEPTH
from tfrobotserver.robot.factory.sandbox.sizes import format_size, json_size, printf_size, shape, text_size

UNBOUNDED = 10**12

_TEXT = st.text(alphabet=st.sampled_from("ab'\"\\\n<>&\x00é中"), max_size=12)
_SCALAR = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT
JSON_VALUES = st.recursive(
    _SCALAR,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)
VALUES = st.recursive(
    _SCALAR | st.binary(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(_TEXT, inner, max_size=4)
        | st.frozensets(st.integers(), max_size=4)
    ),
    max_leaves=20,
)


@given(VALUES)
def test_text_size_is_at_least_the_length_of_str(value: Any) -> None:
    assert text_size(value, UNBOUNDED) >= len(str(value))


@given(VALUES, st.integers(min_value=0, max_value=200))
def test_text_size_stops_past_the_limit_and_agrees_below_it(value: Any, limit: int) -> None:
    whole = text_size(value, UNBOUNDED)
    bounded = text_size(value, limit)
    assert (bounded > limit) == (whole > limit)
    if whole <= limit:
        assert bounded == whole


@given(JSON_VALUES, st.none() | st.integers(min_value=0, max_value=4))
def test_json_size_is_at_least_the_length_of_tojson(value: Any, indent: int | None) -> None:
    assert json_size(value, indent, UNBOUNDED) >= len(htmlsafe_json_dumps(value, indent=indent))


@given(VALUES, VALUES)
def test_printf_size_is_at_least_the_length_of_the_formatted_text(first: Any, second: Any) -> None:
    template = "%s, %r and %-5s!"
    arguments = (first, second, first)
    assert printf_size(template, arguments, UNBOUNDED) >= len(template % arguments)


@given(
    st.integers() | st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "d", ">10", "^+20,.3f", ".2e", "x", "#b", "08.1%", "g", "_", "<3"]),
)
def test_format_size_is_at_least_the_length_of_format(number: float, spec: str) -> None:
    try:
        expected = format(number, spec)
    except ValueError:  # e.g. an integer format for a float: `format` refuses it, nothing is built
        return
    assert format_size(number, spec, UNBOUNDED) >= len(expected)


@pytest.mark.parametrize("value", [bytes, str], ids=["bytes", "str"])
def test_long_text_with_both_quotes_counts_every_escaped_quote(value: type) -> None:
    """Past one chunk (4096 characters), a chunk with only single quotes was measured as `repr` shows it
    alone ("…", no escapes) although the whole text, holding both quotes, shows every ' as \\'."""
    text = "'" * 5000 + '"'
    item = text.encode() if value is bytes else text
    assert text_size([item], UNBOUNDED) >= len(str([item]))
    assert text_size({item: 1}, UNBOUNDED) >= len(str({item: 1}))


def test_values_nested_past_the_depth_bound_are_refused() -> None:
    nested: list[Any] = []
    for _ in range(MAX_DEPTH + 1):
        nested = [nested]
    with pytest.raises(BoundExceeded, match=f"more than {MAX_DEPTH} levels"):
        text_size(nested, UNBOUNDED)
    with pytest.raises(BoundExceeded, match=f"more than {MAX_DEPTH} levels"):
        json_size(nested, None, UNBOUNDED)


def test_shape_counts_items_as_a_tree_and_stops_past_the_limit() -> None:
    assert shape([1, [2, 3], {"k": "v"}], UNBOUNDED) == (8, 2)
    items, _ = shape(list(range(1000)), 10)
    assert items == 11
