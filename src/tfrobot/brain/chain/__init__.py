"""Chains and the LLMs they call."""

__all__: list[str] = []
