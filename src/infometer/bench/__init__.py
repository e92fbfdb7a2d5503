"""bench family (filled by its issue)."""
