"""diffusion family (filled by its issue)."""
