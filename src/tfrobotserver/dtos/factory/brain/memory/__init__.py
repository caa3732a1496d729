"""DTOs of memory components: documents and their file types."""
