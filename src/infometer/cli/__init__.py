"""The ``infometer`` command line."""
