"""See ../shared/design.md for what this package owns."""
