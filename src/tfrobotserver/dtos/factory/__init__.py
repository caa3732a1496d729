"""DTOs built by component factories (the seed's `dtos/factory/`): graph elements, users, memory."""

__all__: list[str] = []
