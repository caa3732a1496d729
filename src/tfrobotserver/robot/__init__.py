"""Robots and their components (`Robot`; the demo robot in `demo`)."""

__all__: list[str] = []
