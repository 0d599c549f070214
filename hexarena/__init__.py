"""The thin ``hexarena`` command line on top of every floor: ``cli.py`` and one module per command group
in ``commands/``. Library functions do the work; a command parses, calls, prints and maps errors to exit codes."""
