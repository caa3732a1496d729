"""Properties of the resolver beyond the fixed vectors: precedence and the cache key."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tfrobotserver.resolver import ActionSchemas, FetchCache, canonical_json, evaluate_namespace, resolve_params

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
