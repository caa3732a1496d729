"""Containers that carry messages into a prompt: `Conversation`, `PromptContext`, trace snapshots."""
