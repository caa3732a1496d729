"""The JMESPath built-in functions as the protocol evaluates them, on the server and in the console.

`jmespath.functions.Functions` is the base; the overrides below are the places where Python
`jmespath` 1.x gives a value the browser cannot reproduce (or crashes), each changed to one
rule that `web/src/protocol/jmespathFunctions.ts` implements the same way:

- equality is JSON equality at every depth (`[true] == [1]` is false; Python's `True == 1` is not);
- object members are visited in the order a browser's `JSON.parse` gives them: array-index keys
  ("0", "1", …) ascending first, then the others as written (`keys`, `values`, `*`, `to_string`);
- `to_number` accepts exactly the JSON number grammar and finite values (no "1_000", "inf", " 1");
- `to_string` writes JSON as `JSON.stringify` does: no ASCII escaping, ECMAScript number text;
- `sum`/`avg` add left to right (Python 3.12's compensated `sum` would differ in the last digit);
- `contains` on a string with a non-string search is false; `min_by`/`max_by` keys must share
  the first key's type, as `sort_by` already requires (Python would raise a bare TypeError).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

from jmespath import exceptions
from jmespath.functions import Functions, signature

_INDEX_KEY = re.compile(r"0|[1-9][0-9]{0,9}", re.ASCII)
_MAX_INDEX = 2**32 - 2
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?", re.ASCII)
_SURROGATE = re.compile("[\ud800-\udfff]")
_SAFE_INT = 2**53
MAX_VALUE_DEPTH = 256
"""Values nested deeper are refused by equality and `to_string` on both sides (Python's stack)."""


def js_key_order(obj: Mapping[str, Any]) -> list[str]:
    """The keys of `obj` in the order a browser enumerates a parsed JSON object."""
    index = [k for k in obj if _INDEX_KEY.fullmatch(k) and int(k) <= _MAX_INDEX]
    chosen = set(index)
    return sorted(index, key=int) + [k for k in obj if k not in chosen]


def js_values(obj: Mapping[str, Any]) -> Iterator[Any]:
    """The member values of `obj` in browser order (see `js_key_order`)."""
    return (obj[k] for k in js_key_order(obj))


def _depth(depth: int) -> int:
    if depth > MAX_VALUE_DEPTH:
        raise ValueError(f"a value nested deeper than {MAX_VALUE_DEPTH}")
    return depth + 1


def json_equal(a: Any, b: Any, depth: int = 0) -> bool:
    """JSON equality: booleans are never numbers, 1 == 1.0, arrays and objects compared deeply."""
    inner = _depth(depth)
    if isinstance(a, list) or isinstance(b, list):
        return (
            isinstance(a, list)
            and isinstance(b, list)
            and len(a) == len(b)
            and all(json_equal(x, y, inner) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(json_equal(a[k], b[k], inner) for k in a)
        )
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and bool(a == b)


def js_number_text(value: float) -> str:
    """ECMAScript Number::toString of `value` (ints beyond 2**53 as the browser's double)."""
    if isinstance(value, int) and abs(value) <= _SAFE_INT:
        return str(value)
    try:
        x = float(value)
    except OverflowError:
        return "null"
    if not math.isfinite(x):
        return "null"
    if x == 0:
        return "0"
    _, digits_t, exp = Decimal(repr(abs(x))).normalize().as_tuple()
    assert isinstance(exp, int)
    digits = "".join(map(str, digits_t))
    k, n = len(digits), exp + len(digits_t)
    sign = "-" if x < 0 else ""
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return f"{sign}{digits[:n]}.{digits[n:]}"
    if -6 < n <= 0:
        return f"{sign}0.{'0' * -n}{digits}"
    e = n - 1
    mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
    return f"{sign}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def _json_string(text: str) -> str:
    quoted = json.dumps(text, ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def js_json(value: Any, depth: int = 0) -> str:
    """`JSON.stringify(value)` as a browser writes it for the same parsed JSON."""
    inner = _depth(depth)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_text(value)
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, list):
        return "[" + ",".join(js_json(v, inner) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_json_string(k)}:{js_json(value[k], inner)}" for k in js_key_order(value)) + "}"
    raise exceptions.JMESPathTypeError("to_string", value, type(value).__name__, ["json"])


def _add(values: list[float]) -> float:
    total: float = 0
    for v in values:
        total += v
    return total


def _jmespath_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "null" if value is None else type(value).__name__


class ProtocolFunctions(Functions):
    """`jmespath`'s functions with the browser-exact overrides described in the module docstring."""

    @signature({"types": []})
    def _func_to_number(self, arg: Any) -> Any:
        if isinstance(arg, bool) or not isinstance(arg, int | float | str):
            return None
        if not isinstance(arg, str):
            return arg
        match = _JSON_NUMBER.fullmatch(arg)
        if match is None:
            return None
        number = float(arg)
        if not math.isfinite(number):
            return None
        integral = match.group(1) is None and match.group(2) is None
        return int(arg) if integral and abs(number) <= _SAFE_INT else number

    @signature({"types": []})
    def _func_to_string(self, arg: Any) -> str:
        return arg if isinstance(arg, str) else js_json(arg)

    @signature({"types": ["array", "string"]}, {"types": []})
    def _func_contains(self, subject: Any, search: Any) -> bool:
        if isinstance(subject, str):
            return isinstance(search, str) and search in subject
        return any(json_equal(item, search) for item in subject)

    @signature({"types": ["array-number"]})
    def _func_sum(self, arg: list[float]) -> float:
        return _add(arg)

    @signature({"types": ["array-number"]})
    def _func_avg(self, arg: list[float]) -> float | None:
        return _add(arg) / len(arg) if arg else None

    @signature({"types": ["object"]})
    def _func_keys(self, arg: dict[str, Any]) -> list[str]:
        return js_key_order(arg)

    @signature({"types": ["object"]})
    def _func_values(self, arg: dict[str, Any]) -> list[Any]:
        return list(js_values(arg))

    @signature({"types": ["object"], "variadic": True})
    def _func_merge(self, *arguments: Any) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for arg in arguments:
            if not isinstance(arg, dict):
                raise exceptions.JMESPathTypeError("merge", arg, _jmespath_type(arg), ["object"])
            merged.update(arg)
        return merged

    @signature({"types": ["array"]}, {"types": ["expref"]})
    def _func_min_by(self, array: list[Any], expref: Any) -> Any:
        return self._extreme_by("min_by", array, expref, lambda new, best: new < best)

    @signature({"types": ["array"]}, {"types": ["expref"]})
    def _func_max_by(self, array: list[Any], expref: Any) -> Any:
        return self._extreme_by("max_by", array, expref, lambda new, best: new > best)

    @staticmethod
    def _extreme_by(name: str, array: list[Any], expref: Any, better: Any) -> Any:
        """The first element whose key is smallest/largest; every key has the first key's type."""
        best: Any = None
        best_key: Any = None
        wanted = ""
        for i, element in enumerate(array):
            key = expref.visit(expref.expression, element)
            kind = _jmespath_type(key)
            if i == 0:
                wanted = kind
                if kind not in ("number", "string"):
                    raise exceptions.JMESPathTypeError(name, key, kind, ["number", "string"])
            elif kind != wanted:
                raise exceptions.JMESPathTypeError(name, key, kind, [wanted])
            if i == 0 or better(key, best_key):
                best, best_key = element, key
        return best
