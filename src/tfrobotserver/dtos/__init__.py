"""DTOs: camelCase HTTP models, the list and graph containers, and the factory element types."""
