"""The reference bots and their brains.

Each folder with a ``bot.toml`` is one reference bot, shipped as package data and started by the
referee from its folder like any other bot: ``random`` and ``greedy`` (a few lines each), ``chains``,
``mcts`` and ``perfect`` (the brains of ``hexarena.bots.brains`` behind the protocol client), ``cbot`` (C)
and ``nodebot`` (JavaScript). ``hexarena.bots.brains`` holds the brains and the exact solver; bots/ imports
only ``protocol`` and ``bots``.
"""
