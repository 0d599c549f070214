"""hexarena: referee, leagues and results for Dots and Hexagons bots written in any language.

One import name, five floors, each importing only its own and the ones below (tests/test_floors.py):

    hexarena.protocol   what a bot and the referee agree on (board, rules, codec, the Python client)
    hexarena.bots       the reference bots and their brains (the solver)
    hexarena.referee    running matches
    hexarena.leagues    workspace, registry, schedules, running leagues, results, the site
    hexarena            the command line (``cli.py``, ``commands/``) and the server (``server/``)

In the repository the four lower floors are the top-level folders ``protocol/``, ``bots/``, ``referee/`` and
``leagues/`` (``pyproject.toml`` maps them into this package); this folder holds the top floor.
"""

import os as _os

# A source tree (tests, benchmarks, a checkout on PYTHONPATH): the lower floors are this folder's siblings.
# Installed, they lie inside this folder and the line below changes nothing.
_repository = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _os.path.isfile(_os.path.join(_repository, "referee", "__init__.py")) and _repository not in __path__:
    __path__.append(_repository)
