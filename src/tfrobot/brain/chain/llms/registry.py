"""The registry of providers by name: a `ChatLLM` subclass that sets `provider` registers itself by being
defined (`ChatLLM.__pydantic_init_subclass__`), so adding one changes nothing else."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfrobot.brain.chain.llms.errors import LLMError

if TYPE_CHECKING:
    from tfrobot.brain.chain.llms.chat_llm import ChatLLM

_PROVIDERS: dict[str, type[ChatLLM]] = {}


def provider_of(model_tag: str | None) -> str | None:
    """'openai' of 'openai:gpt-4o'; None when unknown."""
    return model_tag.split(":", 1)[0] if model_tag else None


def register_provider(cls: type[ChatLLM]) -> None:
    """Make `cls` reachable by its `provider` name; a second class claiming a taken name is refused."""
    taken = _PROVIDERS.get(cls.provider)
    if taken is not None and taken is not cls:
        raise TypeError(
            f"provider name {cls.provider!r} of {cls.__qualname__} is already taken by {taken.__qualname__}. "
            "Fix: give the new class its own `provider` ClassVar."
        )
    _PROVIDERS[cls.provider] = cls


def provider_class(name: str) -> type[ChatLLM]:
    """The ChatLLM class configured as `name` ("openai", "anthropic", "scripted", …)."""
    try:
        return _PROVIDERS[name]
    except KeyError:
        known = ", ".join(sorted(_PROVIDERS))
        raise LLMError(f"unknown LLM provider {name!r}; known providers: {known}") from None


def create_llm(name: str, **settings: Any) -> ChatLLM:
    """An instance of the provider configured as `name`, validated from `settings`."""
    return provider_class(name).model_validate(settings)


def providers() -> dict[str, type[ChatLLM]]:
    """A snapshot of the registry: provider name -> class."""
    return dict(_PROVIDERS)
