"""Robots and their components (`Robot`; the demo robot in `demo`)."""
