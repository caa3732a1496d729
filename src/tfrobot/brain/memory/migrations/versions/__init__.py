"""Revisions, oldest first; Alembic reads them by path."""

__all__: list[str] = []
