"""Every action body: text holding NUL and numbers that are not finite are refused with their paths."""

from __future__ import annotations

import math

from tfrobotserver.app.storable_json import MAX_REPORTED, unstorable_body, unstorable_values


def test_each_offending_value_is_named_by_its_path() -> None:
    body = b'{"keywords": ["ok", "a\\u0000b"], "metadata": {"n": NaN, "deep": [[{"x": -Infinity}]], "k\\u0000": 1}}'
    found = unstorable_body(body)
    assert [(e.path, e.type) for e in found] == [
        ("keywords.1", "nul_character"),
        ("metadata.n", "non_finite_number"),
        ("metadata.deep.0.0.x", "non_finite_number"),
        ("metadata.k\x00", "nul_character"),
    ]
    assert found[1].value == "nan"  # JSON cannot carry a NaN back
    assert "(PostgreSQL text and JSONB) refuse it" in found[0].message
    assert "JSON has no NaN or Infinity" in found[1].message


def test_an_overflowing_number_is_infinity_and_refused() -> None:
    assert [e.path for e in unstorable_body(b'{"metadata": {"big": 1e400}}')] == ["metadata.big"]


def test_ordinary_bodies_pass_and_broken_ones_are_left_to_validation() -> None:
    assert unstorable_body(b'{"text": "tab\\t and \\u00e9", "n": 1.5, "big": 100000000000000000000000}') == []
    assert unstorable_body(b"{nope") == []
    assert unstorable_values("\x00")[0].path == "(params)"


def test_a_flood_of_bad_values_reports_the_first_ones() -> None:
    assert len(unstorable_values([math.nan] * 1000)) == MAX_REPORTED
    deep: object = "\x00"
    for _ in range(5000):
        deep = [deep]
    assert [e.type for e in unstorable_values(deep)] == ["nul_character"]  # iterative: no recursion limit


def test_decoded_values_with_a_lone_surrogate_are_named_and_shown_encodable() -> None:
    """MCP tool arguments arrive decoded (`"\\ud800"` is then a lone surrogate): refused with the path, and the
    echoed value is one JSON and UTF-8 can carry back."""
    found = unstorable_values({"tool_name": "lookup\ud800", "arguments": {"k\udc00": "ok", "fine": "é 😀"}})
    assert [(e.path, e.type) for e in found] == [
        ("tool_name", "lone_surrogate"),
        ("arguments.k\udc00", "lone_surrogate"),
    ]
    assert found[0].value == "lookup?"
    assert "UTF-8 cannot encode it" in found[0].message
