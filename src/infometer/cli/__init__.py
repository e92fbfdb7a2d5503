"""The ``infometer`` command line (its surface is the commands and flags, not modules)."""

__all__: list[str] = []
