"""What the methods a template may call, its operators and the sandbox's globals will build.

The sandbox lets a template call any public method of the values it holds (`'x'.ljust(n)`,
`l.extend(l)`, `(1).to_bytes(n)`), so the methods that make something new are listed here with the
size of what they make, worked out from their arguments; `predict_call` charges it before the call.
Methods that only inspect (`count`, `startswith`, `index` …) and unknown callables (macros, loop
helpers) are not listed: a macro's output is charged piece by piece as it is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sized
from typing import Any

from jinja2.utils import generate_lorem_ipsum

from tfrobotserver.robot.factory.sandbox.budget import MAX_INT_BITS, MAX_ITEMS, MAX_SIZE, BoundExceeded, RenderBudget
from tfrobotserver.robot.factory.sandbox.filters import materialized, replaced_size
from tfrobotserver.robot.factory.sandbox.sizes import printf_size

Args = tuple[Any, ...]
Kwargs = dict[str, Any]
_LINE_BREAKS = re.compile(r"[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_WORDS = re.compile(r"\S+")
_BYTE_WORDS = re.compile(rb"\S+")


def _arg(args: Args, kwargs: Kwargs, index: int, name: str, default: Any) -> Any:
    if len(args) > index:
        return args[index]
    return kwargs.get(name, default)


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0


def _times(text: str | bytes) -> int:
    """How many times longer case mapping or encoding can make `text` (non-ASCII can triple, or more)."""
    return 1 if text.isascii() else 3


def _padded(text: str | bytes, args: Args, kwargs: Kwargs) -> int:
    return max(len(text), _int(_arg(args, kwargs, 0, "width", 0)))


def _tabs(text: str | bytes, args: Args, kwargs: Kwargs) -> int:
    tab = b"\t" if isinstance(text, bytes) else "\t"
    return len(text) + text.count(tab) * max(_int(_arg(args, kwargs, 0, "tabsize", 8)), 1)  # type: ignore[arg-type]


def _replaced(text: str | bytes, args: Args, kwargs: Kwargs) -> int:
    if isinstance(text, bytes):
        old, new = _arg(args, kwargs, 0, "old", b""), _arg(args, kwargs, 1, "new", b"")
        found = len(text) + 1 if not old else text.count(old)
        count = _int(_arg(args, kwargs, 2, "count", -1))
        return len(text) + (min(found, count) if count >= 0 else found) * max(len(new) - len(old), 0)
    params = {"old": _arg(args, kwargs, 0, "old", ""), "new": _arg(args, kwargs, 1, "new", "")}
    params["count"] = _arg(args, kwargs, 2, "count", -1)
    return replaced_size(text, params)


def _joined(text: str | bytes, args: Args, kwargs: Kwargs) -> int:
    parts = args[0] if args else ()
    sizes = [len(part) if isinstance(part, str | bytes) else 0 for part in parts]
    return sum(sizes) + max(len(sizes) - 1, 0) * len(text)


def _translated(text: str | bytes, args: Args, kwargs: Kwargs) -> int:
    table = args[0] if args else None
    if isinstance(table, Mapping):
        longest = max((len(v) for v in table.values() if isinstance(v, str)), default=1)
        return len(text) * max(longest, 1)
    return len(text)


_GROWING: dict[str, Callable[[Any, Args, Kwargs], int]] = {
    "center": _padded,
    "ljust": _padded,
    "rjust": _padded,
    "zfill": _padded,
    "expandtabs": _tabs,
    "replace": _replaced,
    "join": _joined,
    "translate": _translated,
    "upper": lambda t, a, k: len(t) * _times(t),
    "lower": lambda t, a, k: len(t) * _times(t),
    "title": lambda t, a, k: len(t) * _times(t),
    "capitalize": lambda t, a, k: len(t) * _times(t),
    "swapcase": lambda t, a, k: len(t) * _times(t),
    "casefold": lambda t, a, k: len(t) * _times(t),
    "encode": lambda t, a, k: len(t) * (4 if t.isascii() else 10),
    "decode": lambda t, a, k: len(t),
    "hex": lambda t, a, k: 3 * len(t),
    "strip": lambda t, a, k: len(t),
    "lstrip": lambda t, a, k: len(t),
    "rstrip": lambda t, a, k: len(t),
    "removeprefix": lambda t, a, k: len(t),
    "removesuffix": lambda t, a, k: len(t),
    "partition": lambda t, a, k: len(t),
    "rpartition": lambda t, a, k: len(t),
}
"""String and bytes methods that build text, and the length of what they build."""


def _pieces(text: str | bytes, name: str, args: Args, kwargs: Kwargs) -> int:
    """Items of `split`/`rsplit`/`splitlines`, counted without splitting."""
    if name == "splitlines":
        return sum(1 for _ in _LINE_BREAKS.finditer(text)) + 1 if isinstance(text, str) else text.count(b"\n") + 1
    sep = _arg(args, kwargs, 0, "sep", None)
    if sep:
        found = text.count(sep) + 1
    else:
        words = _WORDS.finditer(text) if isinstance(text, str) else _BYTE_WORDS.finditer(text)
        found = sum(1 for _ in words)
    limit = _int(_arg(args, kwargs, 1, "maxsplit", -1))
    return min(found, limit + 1) if limit >= 0 else found


def _container_growth(target: list[Any] | dict[Any, Any], name: str, args: Args, kwargs: Kwargs) -> int | None:
    """Items `target` will hold after the call, or None when the method does not add any."""
    if name in ("append", "insert", "setdefault"):
        return len(target) + 1
    if name in ("copy", "fromkeys"):
        return len(target) if name == "copy" else (len(args[0]) if args and isinstance(args[0], Sized) else 0)
    if name in ("extend", "update"):
        given = args[0] if args else ()
        return len(target) + (len(given) if isinstance(given, Sized) else 0) + len(kwargs)
    return None


def predict_call(budget: RenderBudget, fn: Any, args: Args, kwargs: Kwargs) -> Args:
    """Charge what calling `fn(*args, **kwargs)` builds, or refuse it; the arguments to call it with (a lazy
    iterable given to `join` or `extend` is read here, within bounds)."""
    owner, name = getattr(fn, "__self__", None), getattr(fn, "__name__", "")
    what = f"{type(owner).__name__}.{name}()" if owner is not None else f"{name}()"
    if isinstance(owner, str | bytes):
        if name == "join" and args:
            args = (materialized(args[0], what), *args[1:])
        if name in _GROWING:
            budget.string(_GROWING[name](owner, args, kwargs), what)
        elif name in ("split", "rsplit", "splitlines"):
            budget.items(_pieces(owner, name, args, kwargs), what)
            budget.charge(len(owner))
    elif isinstance(owner, type) and name == "maketrans":
        budget.items(sum(len(a) for a in args if isinstance(a, Sized)), what)
    elif isinstance(owner, list | dict) or (isinstance(owner, type) and name == "fromkeys"):
        if name in ("extend", "update", "fromkeys") and args and isinstance(args[0], Iterable):
            args = (materialized(args[0], what), *args[1:])
        target = owner if isinstance(owner, list | dict) else {}
        grown = _container_growth(target, name, args, kwargs)
        if grown is not None:
            budget.items(grown, what)
    elif isinstance(owner, int) and name == "to_bytes":
        budget.string(_int(_arg(args, kwargs, 0, "length", 1)), what)
    elif fn is generate_lorem_ipsum:
        paragraphs, most = _int(_arg(args, kwargs, 0, "n", 5)), _int(_arg(args, kwargs, 3, "max", 100))
        budget.string(max(paragraphs, 0) * (max(most, 0) * 12 + 10), what)
    return args


def predict_binop(budget: RenderBudget, operator: str, left: Any, right: Any) -> None:
    """Charge what `left <operator> right` builds, or refuse it (`*`, `**`, `+`, `%`)."""
    integers = isinstance(left, int) and isinstance(right, int)
    if operator == "**" and integers and abs(left) > 1 and right * left.bit_length() > MAX_INT_BITS:
        raise BoundExceeded(f"the template computed an integer of more than {MAX_INT_BITS:,} bits")
    if operator == "*":
        if integers and left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise BoundExceeded(f"the template computed an integer of more than {MAX_INT_BITS:,} bits")
        for seq, times in ((left, right), (right, left)):
            if isinstance(times, int) and isinstance(seq, str | bytes):
                budget.string(len(seq) * max(times, 0), "`*`")
            elif isinstance(times, int) and isinstance(seq, list | tuple):
                budget.items(len(seq) * max(times, 0), "`*`")
    elif operator == "+":
        if isinstance(left, str | bytes) and isinstance(right, str | bytes):
            budget.string(len(left) + len(right), "`+`")
        elif isinstance(left, list | tuple) and isinstance(right, list | tuple):
            budget.items(len(left) + len(right), "`+`")
    elif operator == "%" and isinstance(left, str):
        budget.string(printf_size(left, right, MAX_SIZE), "`%` formatting")


def bounded_range(*args: int) -> range:
    """`range` with at most `MAX_ITEMS` numbers (the sandbox's own raises an `OverflowError`, a server error)."""
    numbers = range(*args)
    if len(numbers) > MAX_ITEMS:
        raise BoundExceeded(f"range() of {len(numbers):,} numbers; at most {MAX_ITEMS:,}")
    return numbers


__all__ = ["bounded_range", "predict_binop", "predict_call"]
