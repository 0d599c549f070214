"""The reference bots shipped with hexarena (``bots/``), and who owns a bot's name.

A name has one owner: the author who first submitted it (``submit(..., author=)``: the organiser's
``--author``, by default the OS user; the server's token's author), never the manifest's ``author`` field,
which is informational. The reference bots' names (``reference_names``: the names in ``bots/*/bot.toml``)
belong to ``REFERENCE_AUTHOR``, whoever submits first; no author of ``hexarena serve`` may be called that
(``hexarena.leagues.registry.authors``). ``hexarena.leagues.registry.submit`` applies the rule (``NameTaken``).
"""

from __future__ import annotations

from pathlib import Path

from hexarena.protocol.errors import ConfigError
from hexarena.referee.manifest import load_manifest

REPO_BOTS = Path(__file__).resolve().parents[2] / "bots"  # the reference bots shipped with hexarena
REFERENCE_AUTHOR = "hexarena"  # owns the reference bots' names
_reference_names: frozenset[str] | None = None


def reference_names() -> frozenset[str]:
    """The reference bots' names (``bots/*/bot.toml``), owned by ``REFERENCE_AUTHOR``."""
    global _reference_names
    if _reference_names is None:
        names = set()
        for folder in REPO_BOTS.glob("*/bot.toml"):
            try:
                names.add(load_manifest(folder.parent).name)
            except ConfigError:
                names.add(folder.parent.name)
        _reference_names = frozenset(names)
    return _reference_names
