"""Memory components: document management (DPE) and the knowledge graph."""

__all__: list[str] = []
