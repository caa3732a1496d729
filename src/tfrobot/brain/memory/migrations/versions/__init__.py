"""Revisions, oldest first; Alembic reads them by path."""
