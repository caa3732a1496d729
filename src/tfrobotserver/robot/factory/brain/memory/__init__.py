"""Memory components: document management (DPE) and the knowledge graph."""
