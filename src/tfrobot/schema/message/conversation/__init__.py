"""Concrete user/assistant message classes and the per-turn intermediate trace."""

__all__: list[str] = []
