"""DTOs of brain components."""
