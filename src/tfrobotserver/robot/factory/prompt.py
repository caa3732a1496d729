"""A prompt component with the seed's motivating one-off actions: render and re-configure.

The template is configuration; `arender` shows what it produces for given variables so that an
edited template can be checked before a robot uses it (a template error, a sandbox violation or a
bound crossed is a result with its line, not a server error). Templates run in `BoundedSandbox`
(Jinja2's sandbox plus time and memory bounds checked before anything is built), on a worker
thread: a costly template never holds the event loop. `aset_template` changes the configuration at
run time (see `config_mixin`) after rendering the new template with its defaults: one that cannot
render for any reason but a variable left to the caller is refused. The system prompt (the template
with its defaults) is rendered once per configuration, off the loop, and reused by every turn.
"""

from __future__ import annotations

import json
import types
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, ClassVar

import jinja2
from jinja2 import meta
from pydantic import ConfigDict, Field, PrivateAttr
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.actions.injected import Principal
from tfrobotserver.dtos.factory.config import ConfigUpdate
from tfrobotserver.dtos.factory.prompt import PromptVariables, RenderedPrompt
from tfrobotserver.robot.factory.config_mixin import ConfigurableMixin
from tfrobotserver.robot.factory.sandbox import BoundedSandbox
from tfrobotserver.robot.factory.worker import off_loop

MAX_TEMPLATE_CHARS = 100_000
"""Longest template: parsing and compiling cost about 20 µs per character of dense template code."""
_SHOWN_ERROR = 500
"""Characters of an error message a result repeats (a `KeyError` of a huge key is that key)."""

_ENV = BoundedSandbox(undefined=jinja2.StrictUndefined, autoescape=False, loader=jinja2.DictLoader({}))
"""No loader templates can reach: `{% include %}`, `{% import %}` and `{% extends %}` find nothing."""


@lru_cache(maxsize=64)
def _template_variables(template: str) -> tuple[str, ...]:
    """The undeclared variables of a template that compiles (Jinja's errors otherwise). Remembered: the
    config check on the event loop then finds what a worker thread already computed."""
    return tuple(sorted(meta.find_undeclared_variables(_ENV.parse(template))))


def _variables(path: str, template: str) -> list[str]:
    try:
        return list(_template_variables(template))
    except jinja2.TemplateSyntaxError as exc:
        raise ActionInputError(path, f"template syntax error on line {exc.lineno}: {exc.message}", template) from exc


def render_template(template: str, variables: dict[str, Any]) -> str:
    """Render in the bounded sandbox; raises jinja2's errors (a missing variable is an error, not an empty
    string; a bound crossed is a `SecurityError`) and whatever the template's own operations raise. CPU
    work: call it on a worker thread."""
    return _ENV.render_bounded(template, variables)


def _line_of(exc: BaseException) -> int | None:
    """The template line an error was raised at: Jinja rewrites tracebacks to show template lines."""
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return exc.lineno
    line = None
    trace: types.TracebackType | None = exc.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == "<template>":
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


def _described(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= _SHOWN_ERROR else f"{text[:_SHOWN_ERROR]}… ({len(text):,} characters)"


def _rendered(template: str, variables: dict[str, Any]) -> RenderedPrompt:
    """`arender`'s work, for a worker thread: the text, or what went wrong and where."""
    try:
        names = list(_template_variables(template))
    except jinja2.TemplateSyntaxError as exc:
        return RenderedPrompt(ok=False, error=f"syntax error: {exc.message}", line=exc.lineno, variables=[])
    try:
        text = render_template(template, variables)
    except jinja2.UndefinedError as exc:
        return RenderedPrompt(ok=False, error=f"{exc.message}; the template uses {names}", variables=names)
    except Exception as exc:  # sandbox violations, bounds, and the template's own errors (1 + "a") alike
        return RenderedPrompt(ok=False, error=_described(exc), line=_line_of(exc), variables=names)
    return RenderedPrompt(ok=True, text=text, variables=names)


def _cache_key(template: str, defaults: dict[str, Any]) -> str:
    return json.dumps([template, defaults], sort_keys=True, default=repr)


@dataclass(frozen=True)
class _Failure:
    """Why the system prompt does not render: the error (without its traceback, which holds the render's
    frames) and the template line."""

    error: Exception
    line: int | None


class PromptComponent(ConfigurableMixin):
    """A Jinja2 prompt template and the sample values (`defaults`) it renders with when none are given."""

    model_config: ClassVar[ConfigDict] = ConfigDict(validate_assignment=True)

    template: str = Field(default="You are {{ robot }}. Answer {{ user }} briefly.", max_length=MAX_TEMPLATE_CHARS)
    defaults: dict[str, Any] = Field(default_factory=dict)
    _system: dict[str, str | _Failure] = PrivateAttr(default_factory=dict)
    """The system prompt of the last two configurations (cache key → text, or why it does not render)."""

    def _validate_config(self, new: Any) -> None:
        _variables("template", new.template)  # a template that does not compile is refused, wherever it comes from

    def _render_system(self, template: str, defaults: dict[str, Any]) -> str | _Failure:
        """The template rendered with `defaults`, or why not; remembered for `render_default`."""
        try:
            outcome: str | _Failure = render_template(template, defaults)
        except Exception as exc:
            outcome = _Failure(exc, _line_of(exc))
            exc.with_traceback(None)
        self._system = {**dict(list(self._system.items())[-1:]), _cache_key(template, defaults): outcome}
        return outcome

    def render_default(self) -> str:
        """The template rendered with `defaults` (the robot's system prompt). Rendered once per configuration,
        by `aset_template` or at start-up on a worker thread; here only when neither has."""
        outcome = self._system.get(_cache_key(self.template, self.defaults))
        if outcome is None:
            outcome = self._render_system(self.template, self.defaults)
        if isinstance(outcome, _Failure):
            raise outcome.error.with_traceback(None)
        return outcome

    async def aon_startup(self, session: AsyncSession) -> None:
        await off_loop(self._render_system, self.template, self.defaults)

    @tfs_action(
        alias=ActionAlias(resource="prompt", resource_op_type="render"),
        description="Render the template with sample variables (merged over the defaults); errors are a result.",
    )
    async def arender(
        self, variables: Annotated[dict[str, Any], Field(description="template variables")] | None = None
    ) -> RenderedPrompt:
        return await off_loop(_rendered, self.template, {**self.defaults, **(variables or {})})

    @tfs_action(
        alias=ActionAlias(resource="prompt", resource_op_type="render"),
        description="Render an unsaved template draft with sample variables (merged over the defaults); nothing "
        "is saved; errors are a result.",
    )
    async def arender_draft(
        self,
        template: Annotated[str, Field(min_length=1, max_length=MAX_TEMPLATE_CHARS, description="the draft")],
        variables: Annotated[dict[str, Any], Field(description="template variables")] | None = None,
    ) -> RenderedPrompt:
        return await off_loop(_rendered, template, {**self.defaults, **(variables or {})})

    @tfs_action(alias=ActionAlias(resource="prompt", resource_op_type="get"))
    async def aget_variables(self) -> PromptVariables:
        """The variables the template uses and the default sample values."""
        names = await off_loop(_variables, "template", self.template)
        return PromptVariables(template=self.template, variables=names, defaults=self.defaults)

    @tfs_action(
        alias=ActionAlias(resource="prompt", resource_op_type="config"),
        description="Replace the template and/or the default values (checked by rendering them, saved, "
        "recorded, live at once).",
    )
    async def aset_template(
        self,
        async_session: AsyncSession,
        principal: Principal,
        template: Annotated[str, Field(min_length=1, max_length=MAX_TEMPLATE_CHARS)],
        defaults: dict[str, Any] | None = None,
    ) -> ConfigUpdate:
        changes: dict[str, Any] = {"template": template}
        if defaults is not None:
            changes["defaults"] = defaults
        new_defaults = self.defaults if defaults is None else defaults
        await off_loop(_variables, "template", template)  # compiles it off the loop; the config check reuses it
        outcome = await off_loop(self._render_system, template, new_defaults)
        if isinstance(outcome, _Failure) and not isinstance(outcome.error, jinja2.UndefinedError):
            where = f" (line {outcome.line})" if outcome.line else ""
            raise ActionInputError(
                "template",
                f"the template cannot render with its defaults{where}: {_described(outcome.error)}; a template may "
                "leave variables to its callers, but must otherwise render within the sandbox and its bounds",
                template[:_SHOWN_ERROR],
            )
        return await self._change_config(async_session, principal, changes)
