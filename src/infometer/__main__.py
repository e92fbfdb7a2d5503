"""``python -m infometer`` runs the CLI."""

from .cli.app import main

main()
