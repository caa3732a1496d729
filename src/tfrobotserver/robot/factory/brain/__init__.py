"""Brain components."""
