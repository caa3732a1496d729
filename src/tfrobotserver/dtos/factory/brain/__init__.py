"""DTOs of brain components."""

__all__: list[str] = []
