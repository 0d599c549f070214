"""``python3 -m hexarena`` runs the command line."""

from hexarena.cli import command

if __name__ == "__main__":  # a spawned worker process imports this module again (``referee/pool.py``)
    command()
