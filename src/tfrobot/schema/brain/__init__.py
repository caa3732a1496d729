"""Data models of the brain: the context a chain builds and hands to its LLM."""

__all__: list[str] = []
