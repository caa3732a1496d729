"""Brain components."""

__all__: list[str] = []
