"""``python3 -m hexarena`` runs the command line."""

from hexarena.cli import main

main()
