"""Concrete user/assistant message classes and the per-turn intermediate trace."""
