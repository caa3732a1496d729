"""What the prompt component's actions return (`robot/factory/prompt.py`): a rendered template and its variables."""

from __future__ import annotations

from typing import Any

from tfrobotserver.dtos.base import HttpModel


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
