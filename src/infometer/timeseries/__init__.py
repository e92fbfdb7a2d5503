"""timeseries family (filled by its issue)."""
