"""Data models of chains: the chain context and the prompt context containers."""

__all__: list[str] = []
