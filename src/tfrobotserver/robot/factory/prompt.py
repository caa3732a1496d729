"""A prompt component with the seed's motivating one-off actions: render and re-configure.

The template is configuration; `arender` shows what it produces for given variables so that an
edited template can be checked before a robot uses it (a template error is a result with its line,
not a server error). Templates run in Jinja2's sandbox. `aset_template` changes the configuration
at run time (see `config_mixin`).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import jinja2
from jinja2 import meta
from jinja2.sandbox import SandboxedEnvironment
from pydantic import ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.actions.injected import Principal
from tfrobotserver.dtos.base import HttpModel
from tfrobotserver.robot.factory.config_mixin import ConfigUpdate, ConfigurableMixin

_ENV = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)


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
    """Render in the sandbox; raises jinja2's errors (a missing variable is an error, not an empty string)."""
    return _ENV.from_string(template).render(**variables)


class PromptComponent(ConfigurableMixin):
    """A Jinja2 prompt template and the sample values (`defaults`) it renders with when none are given."""

    model_config: ClassVar[ConfigDict] = ConfigDict(validate_assignment=True)

    template: str = "You are {{ robot }}. Answer {{ user }} briefly."
    defaults: dict[str, Any] = Field(default_factory=dict)

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
        _variables("template", template)
        changes: dict[str, Any] = {"template": template}
        if defaults is not None:
            changes["defaults"] = defaults
        return await self._change_config(async_session, principal, changes)
