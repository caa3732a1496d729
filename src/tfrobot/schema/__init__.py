"""Pure data models shared by every layer: messages, users, the LLM request formats. No I/O."""

__all__: list[str] = []
