"""``protocol``, the name of the client library before hexarena installed one top-level package.

Bots written for hexarena 0.1 (the reference bots' snapshots registered then among them) say
``from protocol.client import run_bot``; the library is ``hexarena.protocol`` now. The referee puts the folder
above this one on a Python bot's ``PYTHONPATH`` (``referee/launch.py``), never on its own path, so such bots keep
working unchanged: ``protocol`` and each ``protocol.X`` are the very module objects of ``hexarena.protocol``
and ``hexarena.protocol.X``, loaded when first imported.
"""

import importlib
import importlib.abc
import importlib.util
import sys

import hexarena.protocol


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``protocol.X`` as ``hexarena.protocol.X``: one module object under both names."""

    def find_spec(self, name, path=None, target=None):
        if name.startswith(__name__ + "."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("hexarena." + spec.name)

    def exec_module(self, module):
        pass  # already executed under its own name


sys.meta_path.insert(0, _Alias())
sys.modules[__name__] = hexarena.protocol
