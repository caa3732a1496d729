"""How long the text of a value is, worked out without building it.

`text_size` is the length of `str(value)` (what `{{ value }}`, `~` and `|string` produce), `json_size`
that of `|tojson`, `printf_size` and `format_size` those of `%` and `str.format`. Each walks the value
once, stops as soon as the count passes its `limit` (so measuring costs at most the bound, not the
value), and refuses values nested deeper than `MAX_DEPTH` (Python's `repr` would recurse that deep).
Strings inside containers are measured as `repr` shows them, a chunk at a time.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from jinja2.runtime import Undefined
from jinja2.utils import Namespace

from tfrobotserver.robot.factory.sandbox.budget import MAX_DEPTH, BoundExceeded

_CHUNK = 4096
_SCALARS = (bool, int, float, type(None))
_LEAVES = frozenset({str, bytes, bool, int, float, type(None)})
_SEQUENCES = frozenset({list, tuple})
_VIEWS: tuple[type, ...] = (type({}.keys()), type({}.values()), type({}.items()))


def _digits(number: int) -> int:
    return int(number.bit_length() * 0.30103) + 2


def _scalar_size(value: Any) -> int:
    if isinstance(value, bool) or value is None:
        return 5
    if isinstance(value, int):
        return _digits(value)
    return len(repr(value))


def _unescaped_singles(chunk: str | bytes) -> int:
    """How many ' the `repr` of `chunk` alone leaves unescaped: all of them when it holds no " (it is then
    quoted with "), none otherwise."""
    if isinstance(chunk, str):
        return chunk.count("'") if '"' not in chunk else 0
    return chunk.count(b"'") if b'"' not in chunk else 0


def _quoted_size(text: str | bytes, room: int) -> int:
    """`len(repr(text))`, a chunk at a time; past `room` the count stops early.

    `repr` quotes with ' and escapes every ' when the text holds both quotes; a chunk holding only ' is
    quoted with " on its own, so each of its ' is counted once more (the whole text's escape)."""
    if len(text) > room:
        return room + 1
    if len(text) <= _CHUNK:
        return len(repr(text))
    both = "'" in text and '"' in text if isinstance(text, str) else b"'" in text and b'"' in text
    quotes = 3 if isinstance(text, bytes) else 2
    size = quotes
    for start in range(0, len(text), _CHUNK):
        chunk = text[start : start + _CHUNK]
        size += len(repr(chunk)) - quotes
        if both:
            size += _unescaped_singles(chunk)
        if size > room:
            return room + 1
    return size


def text_size(value: Any, limit: int) -> int:
    """`len(str(value))`, or `limit + 1` as soon as it is known to be longer than `limit`."""
    if isinstance(value, str):
        return len(value)
    total = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BoundExceeded(f"the template turned a value nested more than {MAX_DEPTH} levels deep into text")
        room = limit - total
        kind = type(item)
        if kind in _SEQUENCES:
            total += 2 + 2 * len(item)
            stack.extend((sub, depth + 1) for sub in item)
        elif isinstance(item, str | bytes):
            total += len(item) if depth == 0 and isinstance(item, str) else _quoted_size(item, room)
        elif isinstance(item, _SCALARS):
            total += _scalar_size(item)
        elif isinstance(item, Mapping | Namespace):
            pairs = item if isinstance(item, Mapping) else object.__getattribute__(item, "_Namespace__attrs")
            total += 2 + 4 * len(pairs) + (12 if isinstance(item, Namespace) else 0)
            for key, sub in pairs.items():
                stack.append((key, depth + 1))
                stack.append((sub, depth + 1))
        elif isinstance(item, list | tuple | set | frozenset) or kind in _VIEWS:
            named = kind in _VIEWS or isinstance(item, frozenset) or (isinstance(item, set) and not item)
            total += 2 + 2 * len(item) + (len(kind.__name__) + 2 if named else 0)  # dict_keys([…]), set()
            stack.extend((sub, depth + 1) for sub in item)
        elif isinstance(item, Undefined):
            continue  # StrictUndefined refuses to become text, with its own error
        else:  # ranges, loop contexts, cyclers, macros, functions: short descriptions
            total += len(str(item))
        if total > limit:
            return limit + 1
    return total


def json_size(value: Any, indent: int | None, limit: int) -> int:
    """`len(json.dumps(value, indent=indent))` plus Jinja's `|tojson` escapes of `<>&'` (six characters
    each); `limit + 1` once it is longer than `limit`."""
    total = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    step = indent or 0
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BoundExceeded(f"the template turned a value nested more than {MAX_DEPTH} levels deep into JSON")
        if isinstance(item, str):
            if len(item) > limit - total:
                return limit + 1
            total += 2 + 5 * sum(item.count(c) for c in "<>&'")
            for start in range(0, len(item), _CHUNK):
                total += len(json.dumps(item[start : start + _CHUNK])) - 2
        elif isinstance(item, Mapping | list | tuple):
            # brackets, separators (", " and ": "), and with an indent a new line and its indentation per item
            total += 2 + 4 * len(item) + (len(item) + 1) * (1 + step * depth if step else 0)
            if isinstance(item, Mapping):
                for key, sub in item.items():
                    stack.append((str(key), depth + 1))
                    stack.append((sub, depth + 1))
            else:
                stack.extend((sub, depth + 1) for sub in item)
        else:
            total += len(json.dumps(item)) if isinstance(item, _SCALARS) else text_size(item, limit - total)
        if total > limit:
            return limit + 1
    return total


def shape(value: Any, limit: int) -> tuple[int, int]:
    """Items of a value counted as a tree, and its depth; the count stops past `limit`."""
    items, deepest = 0, 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack and items <= limit:
        item, depth = stack.pop()
        items += 1
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            raise BoundExceeded(f"the template turned a value nested more than {MAX_DEPTH} levels deep into text")
        kind = type(item)
        if kind in _SEQUENCES or (kind not in _LEAVES and isinstance(item, list | tuple | set | frozenset)):
            stack.extend((sub, depth + 1) for sub in item)
        elif kind not in _LEAVES and isinstance(item, Mapping):
            stack.extend((sub, depth + 1) for pair in item.items() for sub in pair)
    return items, deepest


_PRINTF = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d*))?[hlL]?(?P<type>.)"
)


def _number_size(value: Any, precision: int | None, kind: str, grouped: bool = False) -> int:
    """Characters of a number formatted as `kind` with `precision` digits, a separator every three digits of
    the whole part when `grouped` (an upper bound)."""
    digits = precision if precision is not None else 6
    if isinstance(value, int) and not isinstance(value, bool):
        whole = _digits(value) * (4 if kind in "oxXb" else 1)
    elif isinstance(value, float) and math.isfinite(value) and kind in "fF%":
        whole = max(int(math.log10(abs(value) or 1)), 0) + 2
    else:
        whole = 24
    if grouped:
        whole += whole // 3
    return whole + digits + 8


def printf_size(template: str, arguments: Any, limit: int) -> int:
    """The length of `template % arguments` (an upper bound), or `limit + 1` once it is longer."""
    positional = list(arguments) if isinstance(arguments, tuple) else [arguments]
    mapping = arguments if isinstance(arguments, Mapping) else None
    total = len(template)

    def take() -> Any:
        return positional.pop(0) if positional else None

    for match in _PRINTF.finditer(template):
        kind = match["type"]
        if kind == "%":
            continue
        width, precision = match["width"], match["precision"]
        spread = int(take() or 0) if width == "*" else int(width or 0)
        cut = int(take() or 0) if precision == "*" else (int(precision) if precision else None)
        value = mapping.get(match["key"]) if match["key"] is not None and mapping is not None else take()
        if kind in "sra":
            body = text_size(value if kind == "s" else [value], limit)
            body = min(body, cut) if cut is not None and kind == "s" else body
        else:
            body = _number_size(value, cut, kind)
        total += max(abs(spread), body)
        if total > limit:
            return limit + 1
    return total


_SPEC = re.compile(
    r"(?:.?[<>=^])?[+\- ]?z?#?0?(?P<width>\d*)(?P<group>[_,])?(?:\.(?P<precision>\d+))?(?P<type>[bcdeEfFgGnosxX%]?)$",
    re.DOTALL,
)


def format_size(value: Any, spec: str, limit: int) -> int:
    """The length of `format(value, spec)` for the standard format specification (an upper bound)."""
    match = _SPEC.match(spec)
    if match is None:  # not a standard spec: `format` refuses it, or the type has its own
        return text_size(value, limit) + len(spec)
    width = int(match["width"] or 0)
    precision = int(match["precision"]) if match["precision"] else None
    if isinstance(value, str) or not isinstance(value, int | float) or match["type"] == "s":
        body = text_size(value, limit)
        body = min(body, precision) if precision is not None and isinstance(value, str) else body
    else:
        body = _number_size(value, precision, match["type"] or "g", grouped=match["group"] is not None)
    return max(width, body)


__all__ = ["format_size", "json_size", "printf_size", "shape", "text_size"]
