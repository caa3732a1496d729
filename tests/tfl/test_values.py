"""Value bookkeeping: sizes and depths known at creation, bounded rendering, conversions for tools."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from tfrobot.schema.message import ImageUserMsgPart
from tfrobot.tfl import TFLLimits, TFLScriptError, ToolResult
from tfrobot.tfl.values import Budget, TDict, TList, media_parts, render, render_prefix, to_python, type_name

IMAGE = ImageUserMsgPart(url="https://example.com/i.png")


def test_size_and_depth_count_shared_parts_each_time() -> None:
    leaf = TList([1, 2])
    assert (leaf.size, leaf.depth) == (3, 1)
    shared = TList([leaf, leaf])
    assert (shared.size, shared.depth) == (7, 2)
    d = TDict([("a", shared), ("b", "text")])
    assert (d.size, d.depth) == (9, 3)
    assert TList().size == 1
    assert TList([ToolResult(value=TList([1]), attachments=(IMAGE,))]).size == 4


def test_budget_charges_and_refuses() -> None:
    budget = Budget(TFLLimits(max_allocation=10, max_value_size=4, max_depth=2, max_string_chars=5))
    budget.string("abc", None)
    assert budget.allocated == 3
    with pytest.raises(TFLScriptError, match="string limit"):
        budget.string("abcdef", None)
    with pytest.raises(TFLScriptError, match="value limit"):
        budget.new_list([1, 2, 3, 4], None)
    with pytest.raises(TFLScriptError, match="nesting limit"):
        budget.new_list([TList([TList([])])], None)
    budget.new_list([1, 2], None)
    assert budget.allocated == 5
    with pytest.raises(TFLScriptError, match="memory limit"):
        budget.charge(6, None)


def test_render() -> None:
    value = TDict([("s", 'q"uote'), ("n", None), ("b", True), ("f", 1.0), ("l", TList([IMAGE]))])
    assert (
        render(value, 1000)
        == '{"s": "q\\"uote", "n": null, "b": true, "f": 1.0, "l": [<image: https://example.com/i.png>]}'
    )
    assert render("top-level strings are bare", 100) == "top-level strings are bare"
    assert render("nested", 100, top=False) == '"nested"'
    assert render(ToolResult(value=3), 10) == "3"
    assert render("ü", 5) == "ü"


def test_render_stops_at_the_limit_without_walking_everything() -> None:
    big = TList(["x" * 10] * 1000)
    for _ in range(30):  # 2**30 leaves as a tree; rendering must stop after `limit` characters
        big = TList([big, big])
    text, complete = render_prefix(big, 50)
    assert not complete
    assert len(text) == 50
    with pytest.raises(OverflowError):
        render(big, 50)


def test_to_python_makes_fresh_plain_containers() -> None:
    inner = TList([1])
    value = TDict([("a", inner), ("r", ToolResult(value=TList([2])))])
    plain = to_python(value)
    assert plain == {"a": [1], "r": [2]}
    assert type(plain) is dict
    assert type(plain["a"]) is list
    assert plain["a"] is not inner


def test_media_parts() -> None:
    assert media_parts(IMAGE) == [IMAGE]
    assert media_parts(TList([IMAGE, ToolResult(attachments=(IMAGE,))])) == [IMAGE, IMAGE]
    assert media_parts(ToolResult(value=1)) is None
    assert media_parts(TList([IMAGE, 1])) is None
    assert media_parts("x") is None


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, "null"),
        (True, "bool"),
        (1, "int"),
        (1.0, "float"),
        ("", "string"),
        (TList(), "list"),
        (TDict(), "dict"),
        (IMAGE, "image part"),
        (ToolResult(value="s"), "string"),
    ],
)
def test_type_names(value: object, name: str) -> None:
    assert type_name(value) == name


@pytest.mark.parametrize("char", ["\x00", "😀", "x"])
def test_rendering_costs_about_its_limit_whatever_the_strings_inside(char: str) -> None:
    """Regression: a string inside a list was JSON-escaped whole before being cut to the room left (a
    megabyte of NULs became six megabytes of `\\u0000` first), and every piece was kept as its own object."""
    text = char * 1_000_000
    tracemalloc.start()
    shown, complete = render_prefix([text, text], 1_000_000)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert (len(shown), complete) == (1_000_000, False)
    assert shown.startswith('["' + json.dumps(char, ensure_ascii=False)[1:-1])
    print(f"\nrendering 1,000,000 characters of {char!r} strings peaked at {peak / 1e6:.1f} MB")
    width = 4 if char == "😀" else 1  # bytes a character of the text takes (escaped NULs are ASCII)
    assert peak < 2 * width * len(shown) + 500_000  # the buffer and the text taken from it
