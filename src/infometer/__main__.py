"""``python -m infometer`` runs the CLI."""

from infometer.cli.app import main

main()
