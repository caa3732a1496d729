"""Jinja's filters, each guarded by a prediction of its result's size made from its arguments.

`guarded(name, filter)` returns a filter that first turns a lazy input (a generator from `map` or
`select`) into a list of at most `MAX_ITEMS` items, then asks the filter's predictor how many characters
or items the call will build (and what it copies on the way: `sort` lower-cases every key, `sum` of
lists copies quadratically, `wordwrap` splits the text into chunks) and charges that to the render's
budget, and only then calls the real filter. A filter without a predictor is refused when the sandbox
is built, so a Jinja upgrade that adds one cannot slip past the bounds.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sized
from typing import Any

from jinja2.filters import make_attrgetter
from jinja2.utils import _PassArg
from markupsafe import Markup

from tfrobotserver.robot.factory.sandbox.budget import (
    MAX_ALLOCATION,
    MAX_ITEMS,
    MAX_SIZE,
    BoundExceeded,
    RenderBudget,
    current,
)
from tfrobotserver.robot.factory.sandbox.sizes import json_size, printf_size, shape, text_size

Params = dict[str, Any]
Predictor = Callable[[RenderBudget, Any, Params, str], None]

URLIZE_MAX = 100_000
"""Characters `urlize` reads: it runs several regular expressions per word (about 3 µs a character)."""

_WORD = re.compile(r"\w+")
_ESCAPED = {"&": 4, "<": 3, ">": 3, '"': 4, "'": 4}
"""Characters each of these gains when HTML-escaped (`&amp;`, `&lt;`, `&gt;`, `&#34;`, `&#39;`)."""


def _text(value: Any) -> int:
    return text_size(value, MAX_SIZE)


def _escaped(value: Any) -> int:
    """Length of `escape(str(value))`, counted."""
    if isinstance(value, Markup):
        return len(value)
    if not isinstance(value, str):
        return 5 * _text(value)
    return len(value) + sum(extra * value.count(char) for char, extra in _ESCAPED.items())


def _case_changed(value: Any) -> int:
    """Length bound of `upper`/`lower`/`title` (one character may become three: "ß" → "SS", "ŉ" → "ʼN")."""
    size = _text(value)
    return size if isinstance(value, str) and value.isascii() else 3 * size


def _lines(value: Any) -> int:
    return value.count("\n") + 1 if isinstance(value, str) else _text(value) + 1


def _key_chars(budget: RenderBudget, value: Any, params: Params, attribute: Any = None) -> None:
    """Case-insensitive sorting and grouping lower-case every key first, all kept until the end."""
    if params.get("case_sensitive", True) or not isinstance(value, Iterable):
        return
    keys: Iterable[Any] = value
    if attribute is not None:
        keys = map(make_attrgetter(params["environment"], attribute), value)
    budget.charge(sum(len(key) for key in keys if isinstance(key, str)))


def _same_text(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    budget.string(_text(value), what)


def _nothing(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    """Filters whose result is a part of their input, a number or a lazy iterator."""


def _case(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    budget.string(_case_changed(value), what)


def _escape(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    budget.string(_escaped(value), what)


def _center(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    budget.string(max(_text(value), int(params["width"])), what)


def _indent(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    width = params["width"]
    prefix = len(width) if isinstance(width, str) else max(int(width), 0)
    budget.string(_text(value) + _lines(value) * prefix, what)


def _join(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    items = list(_attribute_values(value, params))
    budget.items(len(items), what)
    total = max(len(items) - 1, 0) * len(str(params["d"]))
    for item in items:
        total += text_size(item, MAX_SIZE - total)
        if total > MAX_SIZE:
            break
    budget.string(total, what)


def _attribute_values(value: Any, params: Params) -> Iterable[Any]:
    attribute = params.get("attribute")
    if attribute is None:
        return value  # type: ignore[no-any-return]
    return map(make_attrgetter(params["environment"], attribute), value)


def _replace(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    budget.string(replaced_size(str(value) if not isinstance(value, str) else value, params), what)


def replaced_size(text: str, params: Params) -> int:
    """Length of `text.replace(old, new, count)`: inserting between every character when `old` is empty."""
    old, new, count = str(params["old"]), str(params["new"]), params.get("count")
    found = len(text) + 1 if not old else text.count(old)
    if count is not None and int(count) >= 0:
        found = min(found, int(count))
    return len(text) + found * max(len(new) - len(old), 0)


def _wordwrap(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    text = str(value)
    chunks = text.count(" ") + text.count("\n") + text.count("-") + 1
    budget.items(2 * chunks, what)  # textwrap splits the text into words and spaces before it wraps
    wrapstring = params["wrapstring"]
    joint = len(wrapstring) if wrapstring is not None else 1
    lines = min(len(text) + 1, len(text) // max(int(params["width"]), 1) + chunks)
    budget.string(len(text) + lines * joint, what)


def _truncate(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    budget.string(min(_text(value), max(int(params["length"]), 0)) + len(str(params["end"])), what)


def _urlize(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    size = _text(value)
    if size > URLIZE_MAX:
        raise BoundExceeded(f"{what} reads at most {URLIZE_MAX:,} characters; this text has {size:,}")
    words = size // 2 + 1
    extra = 60 + len(params.get("target") or "") + len(params.get("rel") or "")
    budget.string(2 * _escaped(value) + words * extra, what)


def _urlencode(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    size = _text(value)  # percent-encoding makes three characters of every UTF-8 byte at most
    budget.string(size * (3 if isinstance(value, str) and value.isascii() else 12), what)


def _format(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    arguments = params["kwargs"] or params["args"]
    size = printf_size(str(value), arguments, MAX_SIZE)
    budget.string(size * (6 if isinstance(value, Markup) else 1), what)


def _tojson(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    indent = params.get("indent")
    budget.string(json_size(value, max(int(indent), 0) if indent is not None else None, MAX_SIZE), what)


def _pprint(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    items, depth = shape(value, MAX_ITEMS)
    budget.items(items, what)
    budget.string(text_size([value], MAX_SIZE) + items * (depth + 2), what)  # one line per item, indented


def _xmlattr(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    budget.string(6 * _text(value), what)


def _count_items(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    budget.items(len(value) if isinstance(value, Sized) else 0, what)


def _sorted(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    _count_items(budget, value, params, what)
    _key_chars(budget, value, params, params.get("attribute"))


def _dictsort(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    _count_items(budget, value, params, what)
    if isinstance(value, Mapping):
        keys = value.keys() if params["by"] == "key" else value.values()
        _key_chars(budget, list(keys), params)


def _groupby(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    budget.items(2 * len(value) if isinstance(value, Sized) else 0, what)
    _key_chars(budget, value, params, params["attribute"])


def _batch(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    fill = max(int(params["linecount"]), 0) if params.get("fill_with") is not None else 0
    budget.items((len(value) if isinstance(value, Sized) else 0) + fill, what)


def _slice(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    budget.items((len(value) if isinstance(value, Sized) else 0) + 2 * max(int(params["slices"]), 0), what)


def _reverse(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    if isinstance(value, str):
        budget.string(len(value), what)
    else:
        _count_items(budget, value, params, what)


def _sum(budget: RenderBudget, value: Any, params: Params, what: str) -> None:
    start = params["start"]
    if not isinstance(start, list | tuple):
        return
    running, copied = len(start), 0
    for item in _attribute_values(value, params):  # each addition copies everything summed so far
        running += len(item) if isinstance(item, Sized) else 1
        copied += running
        if running > MAX_ITEMS or copied > MAX_ALLOCATION:
            break
    budget.items(running, what)
    budget.charge(copied)


PREDICTORS: dict[str, Predictor] = {
    "abs": _nothing,
    "attr": _nothing,
    "batch": _batch,
    "capitalize": _case,
    "center": _center,
    "count": _nothing,
    "d": _nothing,
    "default": _nothing,
    "dictsort": _dictsort,
    "e": _escape,
    "escape": _escape,
    "filesizeformat": _nothing,
    "first": _nothing,
    "float": _nothing,
    "forceescape": _escape,
    "format": _format,
    "groupby": _groupby,
    "indent": _indent,
    "int": _nothing,
    "items": _nothing,
    "join": _join,
    "last": _nothing,
    "length": _nothing,
    "list": _count_items,
    "lower": _case,
    "map": _nothing,
    "max": _sorted,
    "min": _sorted,
    "pprint": _pprint,
    "random": _nothing,
    "reject": _nothing,
    "rejectattr": _nothing,
    "replace": _replace,
    "reverse": _reverse,
    "round": _nothing,
    "safe": _nothing,
    "select": _nothing,
    "selectattr": _nothing,
    "slice": _slice,
    "sort": _sorted,
    "string": _same_text,
    "striptags": _same_text,
    "sum": _sum,
    "title": _case,
    "tojson": _tojson,
    "trim": _same_text,
    "truncate": _truncate,
    "unique": _sorted,
    "upper": _case,
    "urlencode": _urlencode,
    "urlize": _urlize,
    "wordcount": _nothing,
    "wordwrap": _wordwrap,
    "xmlattr": _xmlattr,
}
"""Every builtin filter and what it may build."""


def wordcount(s: Any) -> int:
    """Jinja's `wordcount` without its list of every word (a megabyte of text is half a million words)."""
    return sum(1 for _ in _WORD.finditer(str(s)))


def materialized(value: Any, what: str) -> Any:
    """A lazy iterator as a list of at most `MAX_ITEMS` items (counted as they come); anything else as is."""
    if not isinstance(value, Iterator):
        return value
    budget = current()
    items = []
    for item in value:
        items.append(item)
        if len(items) > MAX_ITEMS:
            raise BoundExceeded(f"{what} would read more than {MAX_ITEMS:,} items")
    budget.charge(len(items))
    return items


def _binder(fn: Callable[..., Any]) -> tuple[int, inspect.Signature]:
    """How many leading arguments Jinja passes itself (context, eval context, environment), and the
    signature of the rest. An async-variant filter's signature may or may not list that argument."""
    lead = 0 if _PassArg.from_obj(fn) is None else 1
    signature = inspect.signature(fn)
    params = list(signature.parameters.values())
    if lead and params and params[0].name in ("context", "eval_ctx", "environment", "env"):
        params = params[1:]
    return lead, signature.replace(parameters=params)


def guarded(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` behind its predictor (see the module docstring)."""
    predictor = PREDICTORS[name]
    lead, signature = _binder(fn)
    what = f"the filter |{name}"

    @functools.wraps(fn)
    def filter_(*args: Any, **kwargs: Any) -> Any:
        budget = current()
        budget.tick()
        passed, value, rest = args[:lead], materialized(args[lead], what), args[lead + 1 :]
        bound = signature.bind(value, *rest, **kwargs)
        bound.apply_defaults()
        params = dict(bound.arguments)
        params["environment"] = getattr(passed[0], "environment", passed[0]) if passed else None
        predictor(budget, value, params, what)
        return fn(*passed, value, *rest, **kwargs)

    return filter_


__all__ = ["PREDICTORS", "URLIZE_MAX", "guarded", "materialized", "replaced_size", "wordcount"]
