"""`BoundedSandbox`: Jinja2's sandbox plus bounds, checked before anything is built, on what a template
can make the server compute.

Jinja2's `SandboxedEnvironment` keeps templates away from Python's internals; it does not bound what
they compute, and `{{ 'x' * 10**10 }}`, `{{ s|indent(10**9) }}` or two nested `range(100000)` loops take
the process down. Here every intercepted operation predicts the size of its result and charges the
render's budget first (`budget`, `sizes`, `filters`, `calls`): `*`, `**`, `+` and `%`, `~`
concatenation, every filter, every method call, `str.format` field by field, and each `{{ … }}`
output (its text is measured before `str()` builds it). Loops draw on an iteration budget, and every
check looks at the clock. `render_bounded` runs in a worker thread (see `prompt.py`).
"""

from __future__ import annotations

import io
import types
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache, update_wrapper
from typing import Any, cast

from jinja2 import nodes
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment, SandboxedFormatter
from jinja2.visitor import NodeTransformer
from markupsafe import EscapeFormatter, Markup

from tfrobotserver.robot.factory.sandbox import budget
from tfrobotserver.robot.factory.sandbox.budget import MAX_SECONDS, MAX_SIZE, BoundExceeded
from tfrobotserver.robot.factory.sandbox.calls import bounded_range, predict_binop, predict_call
from tfrobotserver.robot.factory.sandbox.filters import PREDICTORS, guarded, wordcount
from tfrobotserver.robot.factory.sandbox.sizes import format_size, text_size


def _counted(iterable: Iterable[Any]) -> Iterator[Any]:
    render = budget.current()
    for item in iterable:
        render.iteration()
        yield item


def _concat(parts: list[Any]) -> str:
    """`a ~ b ~ c`: the parts measured, then joined (Jinja's own concatenation, `str_join`)."""
    total = 0
    for part in parts:
        total += text_size(part, MAX_SIZE - total)
        if total > MAX_SIZE:
            break
    budget.current().string(total, "`~`")
    return "".join(map(str, parts))


def _finalize(value: Any) -> Any:
    """Every `{{ … }}`: its text is measured (and charged) before Jinja turns it into a string."""
    budget.current().string(text_size(value, MAX_SIZE), "the output {{ … }}")
    return value


def _filtered(node: nodes.Expr, name: str) -> nodes.Filter:
    return nodes.Filter(node, name, [], [], None, None, lineno=node.lineno)


class _Bounded(NodeTransformer):
    """Every loop draws on the render's iteration budget; every `~` is measured before it joins."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = _filtered(cast(nodes.Expr, node.iter), "tfrobot_counted")
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return _filtered(nodes.List(node.nodes, lineno=node.lineno), "tfrobot_concat")


class _BoundedFormatter(SandboxedFormatter):
    """`str.format` with each field measured before it is formatted, and the whole result bounded."""

    def vformat(self, format_string: str, args: Any, kwargs: Any) -> str:
        self._total = len(format_string)  # the literal text, at most
        return super().vformat(format_string, args, kwargs)

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion in ("r", "a"):
            budget.current().string(text_size([value], MAX_SIZE), "a !r conversion")
        return super().convert_field(value, conversion)

    def format_field(self, value: Any, format_spec: str) -> Any:
        size = format_size(value, format_spec, MAX_SIZE)
        budget.current().string(size, "str.format()")
        self._total += size
        if self._total > MAX_SIZE:
            raise BoundExceeded(f"str.format() would build more than {MAX_SIZE:,} characters")
        return super().format_field(value, format_spec)


class _BoundedEscapeFormatter(_BoundedFormatter, EscapeFormatter):
    """The same for `Markup.format` (which escapes its fields)."""


class BoundedSandbox(SandboxedEnvironment):
    """Jinja2's sandbox with the bounds of this package (see the module docstring)."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self, **options: Any) -> None:
        super().__init__(finalize=_finalize, **options)
        missing = sorted(set(self.filters) - set(PREDICTORS))
        if missing:
            raise RuntimeError(f"filters {missing} have no size predictor: add them to sandbox.filters.PREDICTORS")
        self.filters["wordcount"] = wordcount
        self.filters = {name: guarded(name, fn) for name, fn in self.filters.items()}
        self.filters["tfrobot_counted"] = _counted
        self.filters["tfrobot_concat"] = _concat
        self.globals["range"] = bounded_range
        # compiling a template costs more than rendering it, and prompts are rendered once per turn
        self._compiled = lru_cache(maxsize=256)(self.from_string)

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        render = budget.current()
        render.tick()
        args = predict_call(render, __obj, args, kwargs)
        result = super().call(__context, __obj, *args, **kwargs)
        # a macro's text was charged piece by piece as it was written; the whole is bounded here
        if isinstance(result, str) and len(result) > MAX_SIZE:
            raise BoundExceeded(f"a call returned {len(result):,} characters; at most {MAX_SIZE:,}")
        return result

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        predict_binop(budget.current(), operator, left, right)
        return super().call_binop(context, operator, left, right)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """`str.format` / `format_map` through the bounded formatter (as Jinja's own wrapper does, with its
        formatter); None for any other value."""
        is_method = isinstance(value, types.MethodType | types.BuiltinMethodType)
        if not is_method or value.__name__ not in ("format", "format_map") or not isinstance(value.__self__, str):
            return None
        text: str = value.__self__
        formatter = _BoundedEscapeFormatter(self, escape=text.escape) if isinstance(text, Markup) else None
        bounded = formatter or _BoundedFormatter(self)

        def wrapper(*args: Any, **kwargs: Any) -> str:
            if value.__name__ == "format":
                return type(text)(bounded.vformat(text, args, kwargs))
            if kwargs or len(args) != 1:
                raise TypeError(f"format_map() takes exactly one positional argument ({len(args)} given)")
            return type(text)(bounded.vformat(text, (), args[0]))

        return update_wrapper(wrapper, value)

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        bounded = _Bounded().visit(tree)
        assert isinstance(bounded, nodes.Template)
        return bounded

    def render_bounded(self, source: str, variables: dict[str, Any], seconds: float = MAX_SECONDS) -> str:
        """Render `source` within the bounds; `SecurityError` (a `TemplateError`) when one is crossed."""
        token = budget.start(seconds)
        try:
            out = io.StringIO()
            size = 0
            for chunk in self._compiled(source).generate(**variables):
                size += len(chunk)
                if size > MAX_SIZE:
                    raise BoundExceeded(f"the rendered text is longer than {MAX_SIZE:,} characters")
                out.write(chunk)
            return out.getvalue()
        finally:
            budget.finish(token)


__all__ = ["BoundedSandbox"]
