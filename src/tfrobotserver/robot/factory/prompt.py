"""A prompt component with the seed's motivating one-off actions: render and re-configure.

The template is configuration; `arender` shows what it produces for given variables so that an
edited template can be checked before a robot uses it (a template error is a result with its line,
not a server error). Templates run in Jinja2's sandbox. `aset_template` changes the configuration
at run time (see `config_mixin`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from functools import lru_cache
from typing import Annotated, Any, ClassVar, cast

import jinja2
from jinja2 import meta, nodes
from jinja2.exceptions import SecurityError
from jinja2.sandbox import SandboxedEnvironment
from jinja2.visitor import NodeTransformer
from pydantic import ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.actions.injected import Principal
from tfrobotserver.dtos.base import HttpModel
from tfrobotserver.robot.factory.config_mixin import ConfigUpdate, ConfigurableMixin

MAX_SIZE = 1_000_000
"""Longest string or sequence a template may build, and longest rendered text (characters)."""
MAX_ITERATIONS = 1_000_000
"""Loop iterations one render may run, all loops together."""
MAX_INT_BITS = 100_000
"""Largest integer a template may compute with `**`."""

_ITERATIONS: ContextVar[list[int]] = ContextVar("_ITERATIONS")


def _counted(iterable: Iterable[Any]) -> Iterator[Any]:
    budget = _ITERATIONS.get()
    for item in iterable:
        budget[0] -= 1
        if budget[0] < 0:
            raise SecurityError(f"the template ran more than {MAX_ITERATIONS:,} loop iterations")
        yield item


_HUGE_WIDTH = re.compile(r"%[-#0 +]*(\*|\d{7,})|%[-#0 +]*\d*\.(\*|\d{7,})|\{[^{}]*:[^{}]*\d{7,}[^{}]*\}")
"""A printf or format() width or precision of a million or more (or taken from an argument)."""


def _argument(value: Any) -> Any:
    if isinstance(value, int) and abs(value) > MAX_SIZE:
        raise SecurityError(f"the template passed {value} as an argument; at most {MAX_SIZE:,} is allowed")
    return value


def _format_string(value: Any) -> Any:
    if isinstance(value, str) and _HUGE_WIDTH.search(value):
        raise SecurityError(f"the template formats with a width or precision of more than {MAX_SIZE:,}")
    return value


def _sized(value: Any) -> Any:
    if isinstance(value, str | bytes | list | tuple | dict) and len(value) > MAX_SIZE:
        raise SecurityError(f"the template built a value of more than {MAX_SIZE:,} items")
    return value


def _wrap(node: nodes.Expr, name: str) -> nodes.Expr:
    return nodes.Filter(node, name, [], [], None, None, lineno=node.lineno)


class _Bounded(NodeTransformer):
    """Every loop draws on the render's iteration budget; every concatenation is size-checked."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = _wrap(cast(nodes.Expr, node.iter), "tfrobot_counted")
        return node

    def visit_Filter(self, node: nodes.Filter) -> nodes.Node:
        self.generic_visit(node)
        node.args = [_wrap(arg, "tfrobot_argument") for arg in node.args]
        for keyword in node.kwargs:
            keyword.value = _wrap(keyword.value, "tfrobot_argument")
        if node.name == "format" and isinstance(node.node, nodes.Expr):
            node.node = _wrap(node.node, "tfrobot_format_string")
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return _wrap(node, "tfrobot_sized")


class BoundedSandbox(SandboxedEnvironment):
    """Jinja2's sandbox (no attribute escapes) plus bounds on what a template can make the server compute:
    `*`, `**` and `+` results, concatenations, loop iterations and the output's length. The sandbox alone
    lets `{{ 'x' * 10**10 }}` or two nested `range(100000)` loops take the process down."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.filters["tfrobot_counted"] = _counted
        self.filters["tfrobot_sized"] = _sized
        self.filters["tfrobot_argument"] = _argument
        self.filters["tfrobot_format_string"] = _format_string
        # compiling a template costs more than rendering it, and prompts are rendered once per turn
        self._compiled = lru_cache(maxsize=256)(self.from_string)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        for value in (*args, *kwargs.values()):
            _argument(value)
        method = getattr(__obj, "__wrapped__", __obj)  # the sandbox wraps str.format
        if getattr(method, "__name__", None) in ("format", "format_map"):
            _format_string(getattr(method, "__self__", None))
        return _sized(super().call(__context, __obj, *args, **kwargs))

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        exponent = operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1
        if exponent and right * left.bit_length() > MAX_INT_BITS:
            raise SecurityError(f"the template computed an integer of more than {MAX_INT_BITS:,} bits")
        if operator == "%":
            _format_string(left)
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                sequence = isinstance(seq, str | bytes | list | tuple) and isinstance(times, int)
                if sequence and len(seq) * times > MAX_SIZE:
                    raise SecurityError(f"the template built a value of more than {MAX_SIZE:,} items")
        return _sized(super().call_binop(context, operator, left, right))

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        bounded = _Bounded().visit(tree)
        assert isinstance(bounded, nodes.Template)
        return bounded

    def render_bounded(self, source: str, variables: dict[str, Any]) -> str:
        """Render `source` within the bounds; `SecurityError` (a `TemplateError`) when one is crossed."""
        token = _ITERATIONS.set([MAX_ITERATIONS])
        try:
            chunks: list[str] = []
            size = 0
            for chunk in self._compiled(source).generate(**variables):
                size += len(chunk)
                if size > MAX_SIZE:
                    raise SecurityError(f"the rendered text is longer than {MAX_SIZE:,} characters")
                chunks.append(chunk)
            return "".join(chunks)
        finally:
            _ITERATIONS.reset(token)


_ENV = BoundedSandbox(undefined=jinja2.StrictUndefined, autoescape=False, loader=jinja2.DictLoader({}))
"""No loader templates can reach: `{% include %}`, `{% import %}` and `{% extends %}` find nothing."""


class RenderedPrompt(HttpModel):
    """The rendered text, or the template error (`ok` false) with its line; and the template's variables."""

    ok: bool
    text: str | None = None
    error: str | None = None
    line: int | None = None
    variables: list[str]


class PromptVariables(HttpModel):
    """The variables a template uses, and the sample values it renders with by default."""

    template: str
    variables: list[str]
    defaults: dict[str, Any]


def _variables(path: str, template: str) -> list[str]:
    try:
        return sorted(meta.find_undeclared_variables(_ENV.parse(template)))
    except jinja2.TemplateSyntaxError as exc:
        raise ActionInputError(path, f"template syntax error on line {exc.lineno}: {exc.message}", template) from exc


def render_template(template: str, variables: dict[str, Any]) -> str:
    """Render in the bounded sandbox; raises jinja2's errors (a missing variable is an error, not an empty
    string; a bound crossed is a `SecurityError`)."""
    return _ENV.render_bounded(template, variables)


class PromptComponent(ConfigurableMixin):
    """A Jinja2 prompt template and the sample values (`defaults`) it renders with when none are given."""

    model_config: ClassVar[ConfigDict] = ConfigDict(validate_assignment=True)

    template: str = "You are {{ robot }}. Answer {{ user }} briefly."
    defaults: dict[str, Any] = Field(default_factory=dict)

    def _validate_config(self, new: Any) -> None:
        _variables("template", new.template)  # a template that does not compile is refused, wherever it comes from

    def render_default(self) -> str:
        """The template rendered with `defaults` (the robot's system prompt)."""
        return render_template(self.template, self.defaults)

    @tfs_action(
        alias=ActionAlias(resource="prompt", resource_op_type="render"),
        description="Render the template with sample variables (merged over the defaults); errors are a result.",
    )
    async def arender(
        self, variables: Annotated[dict[str, Any], Field(description="template variables")] | None = None
    ) -> RenderedPrompt:
        try:
            names = sorted(meta.find_undeclared_variables(_ENV.parse(self.template)))
            text = render_template(self.template, {**self.defaults, **(variables or {})})
        except jinja2.TemplateSyntaxError as exc:
            return RenderedPrompt(ok=False, error=f"syntax error: {exc.message}", line=exc.lineno, variables=[])
        except jinja2.UndefinedError as exc:
            return RenderedPrompt(ok=False, error=f"{exc.message}; the template uses {names}", variables=names)
        except jinja2.TemplateError as exc:  # sandbox violations (SecurityError) included
            return RenderedPrompt(ok=False, error=f"{type(exc).__name__}: {exc}", variables=names)
        return RenderedPrompt(ok=True, text=text, variables=names)

    @tfs_action(alias=ActionAlias(resource="prompt", resource_op_type="get"))
    async def aget_variables(self) -> PromptVariables:
        """The variables the template uses and the default sample values."""
        return PromptVariables(
            template=self.template, variables=_variables("template", self.template), defaults=self.defaults
        )

    @tfs_action(
        alias=ActionAlias(resource="prompt", resource_op_type="config"),
        description="Replace the template and/or the default values (checked, saved, recorded, live at once).",
    )
    async def aset_template(
        self,
        async_session: AsyncSession,
        principal: Principal,
        template: Annotated[str, Field(min_length=1)],
        defaults: dict[str, Any] | None = None,
    ) -> ConfigUpdate:
        changes: dict[str, Any] = {"template": template}
        if defaults is not None:
            changes["defaults"] = defaults
        return await self._change_config(async_session, principal, changes)
