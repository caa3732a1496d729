"""Properties of the resolver beyond the fixed vectors: precedence and the cache key."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfrobotserver.resolver import (
    ActionSchemas,
    FetchCache,
    ResolverError,
    canonical_json,
    evaluate_namespace,
    resolve_params,
)

VARS = st.sampled_from(["a", "b", "c"])
VALUES = st.one_of(st.none(), st.integers(), st.text(max_size=3))
SCOPES = st.dictionaries(VARS, VALUES, max_size=3)
SCHEMA = ActionSchemas(
    "act", {"type": "object", "properties": {v: {"x-ref": v} for v in ("a", "b", "c")}, "required": ["a", "b", "c"]}
)


def _never(action: str, params: dict[str, Any]) -> Any:
    raise AssertionError("no x-fetch in this schema")


@settings(deadline=None)  # timing on a loaded CI machine must not decide the outcome
@given(element=SCOPES, container=SCOPES)
def test_first_non_null_scope_wins(element: dict[str, Any], container: dict[str, Any]) -> None:
    got = resolve_params(SCHEMA, element, container, _never)
    for var in ("a", "b", "c"):
        expected = element.get(var) if element.get(var) is not None else container.get(var)
        if expected is None:
            assert var in got.missing
            assert var not in got.params
        else:
            assert got.params[var] == expected


@settings(deadline=None)
@given(st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=4), max_size=5))
def test_cache_key_ignores_key_order(params: dict[str, Any]) -> None:
    reordered = dict(reversed(list(params.items())))
    assert FetchCache.key("aget", params) == FetchCache.key("aget", reordered)
    assert canonical_json(params) == canonical_json(reordered)


def test_canonical_json_is_compact_and_keeps_unicode() -> None:
    assert canonical_json({"b": 1, "a": ["中文", None]}) == '{"a":["中文",null],"b":1}'


def test_options_read_labels_and_keys_relative_to_values() -> None:
    namespace = {
        "pick": {"Options": {"labels": "values[*].name", "keys": "values[*].id", "values": "people"}},
        "first": "people[0].id",
    }
    element = {"people": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Ben"}]}
    assert evaluate_namespace(namespace, element) == {
        "pick": {"labels": ["Ann", "Ben"], "keys": [1, 2], "values": element["people"]},
        "first": 1,
    }


def test_a_comparison_of_unlike_types_is_null_not_a_crash() -> None:
    namespace = {"bad": "'7' < `5`", "low": "items[?score < `5`].id"}
    element = {"items": [{"id": 1, "score": None}, {"id": 2, "score": 1}, {"id": 3, "score": "1"}, {"id": 4}]}
    assert evaluate_namespace(namespace, element) == {"bad": None, "low": [2]}


def test_an_expression_failing_on_the_data_is_a_protocol_error() -> None:
    with pytest.raises(ResolverError) as info:
        evaluate_namespace({"n": "abs(name)"}, {"name": "Ann"})
    assert info.value.code == "expression_error"
    assert "x-namespace.n" in str(info.value)
    assert "invalid-type" in str(info.value)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "score"]), inner, max_size=3),
    max_leaves=10,
)  # fmt: skip
EXPRESSIONS = st.lists(
    st.sampled_from(["a", "b", "score", "@", ".", "[*]", "[?", "]", "<", "==", "`5`", "'7'", "`null`", "!", "&&",
                     "abs(", "sort(", "length(", ")", "|", "[0]", "[::-1]", "{k: ", "}", ", "]),
    max_size=8,
).map("".join)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(expressions=st.dictionaries(st.sampled_from(["x", "y"]), EXPRESSIONS, max_size=2), element=JSON)
def test_evaluate_namespace_never_crashes(expressions: dict[str, str], element: Any) -> None:
    code = "ok"
    try:
        evaluate_namespace(expressions, element)
    except ResolverError as exc:
        code = exc.code
    assert code in {"ok", "expression_error"}
