"""parametric family (filled by its issue)."""
