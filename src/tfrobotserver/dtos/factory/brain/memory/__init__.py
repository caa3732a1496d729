"""DTOs of memory components: documents and their file types."""

__all__: list[str] = []
