"""A prompt component with the seed's motivating one-off actions: render and re-configure.

The template is configuration; `arender` shows what it produces for given variables so that an
edited template can be checked before a robot uses it. Templates run in Jinja2's sandbox.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import jinja2
from jinja2 import meta
from jinja2.sandbox import SandboxedEnvironment
from pydantic import ConfigDict, Field

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.dtos.base import HttpModel

_ENV = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)


class RenderedPrompt(HttpModel):
    """The rendered text and the variables the template uses (to spot a missing one)."""

    text: str
    variables: list[str]


class PromptConfig(HttpModel):
    """The prompt's configuration after a change."""

    template: str
    variables: list[str]


def _variables(path: str, template: str) -> list[str]:
    try:
        return sorted(meta.find_undeclared_variables(_ENV.parse(template)))
    except jinja2.TemplateSyntaxError as exc:
        raise ActionInputError(path, f"template syntax error on line {exc.lineno}: {exc.message}", template) from exc


class PromptComponent(TFSComponent):
    """A Jinja2 prompt template."""

    model_config: ClassVar[ConfigDict] = ConfigDict(validate_assignment=True)

    template: str = "You are {{ robot }}. Answer {{ user }} briefly."

    @tfs_action(
        alias=ActionAlias(resource="prompt", resource_op_type="render"),
        description="Render the template with the given variables.",
    )
    async def arender(
        self, variables: Annotated[dict[str, Any], Field(description="template variables")] | None = None
    ) -> RenderedPrompt:
        names = _variables("template", self.template)
        try:
            text = _ENV.from_string(self.template).render(**(variables or {}))
        except jinja2.UndefinedError as exc:
            raise ActionInputError("variables", f"{exc.message}; the template uses {names}", variables) from exc
        except jinja2.TemplateError as exc:
            raise ActionInputError("variables", str(exc), variables) from exc
        return RenderedPrompt(text=text, variables=names)

    @tfs_action(
        alias=ActionAlias(resource="prompt", resource_op_type="config"),
        description="Replace the template (kept until restart).",
    )
    async def aset_template(self, template: Annotated[str, Field(min_length=1)]) -> PromptConfig:
        names = _variables("template", template)
        self.template = template
        return PromptConfig(template=template, variables=names)
