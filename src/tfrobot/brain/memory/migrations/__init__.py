"""Alembic migrations of the memory store, shipped in the package so `SQLMessageStore.migrate()` needs no
project checkout or alembic.ini (see `tfrobot.brain.memory.engine.alembic_config`)."""

__all__: list[str] = []
