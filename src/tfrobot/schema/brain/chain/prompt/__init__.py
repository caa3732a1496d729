"""Containers that carry messages into a prompt: `Conversation`, `PromptContext`, trace snapshots."""

__all__: list[str] = []
