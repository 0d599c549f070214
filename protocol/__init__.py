"""The contract between bots and the referee: the lowest floor, importing nothing of ours.

    board.py      board geometry and the canonical numbering of dots, lines and cells (BOARD.md)
    rules.py      the rules engine: pure game states, apply, legal moves, outcome
    render.py     a board and position as text
    codec.py      every protocol v1 message as a value with its text form (PROTOCOL.md); the termination vocabulary
    client.py     the Python client: a bot is one ``choose(game, state)`` function
    validation.py the one formatter of pydantic errors into one-line messages
    errors.py     the error tree
"""
