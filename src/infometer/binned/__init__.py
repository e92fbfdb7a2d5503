"""binned family (filled by its issue)."""
