"""truth family (filled by its issue)."""
