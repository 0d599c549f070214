"""Running matches: imports only ``protocol`` and ``referee``.

    referee.py    Referee: warm seats across games, one hub, ``play``
    settings.py   RefereeSettings: the one frozen value a referee is made with (time control, limits, sandbox...)
    pool.py       referees on threads or in worker processes, each made from one RefereeSettings
    game.py       the one game loop: announcements, clocks, deadlines, fault policy, the record
    observers.py  telling an observer of a game's events: its failure logged, never raised
    seats/        the seat interface (base.py) and its kinds: the ZeroMQ base (zmq.py), bot processes (process.py),
                  remote seats over tcp with CURVE (remote.py), in-process and scripted seats (inprocess.py)
    hub.py        the one poller over the ROUTER socket and the seats' descriptors
    transport.py  the ROUTER socket and token authentication
    curve.py      the CURVE gate of the tcp endpoint for remote seats
    launch.py     launching, logging and stopping bot processes
    limits.py     Limits: a bot's resource limits, their names, rlimits and prlimit arguments
    sandbox.py    the sandbox every bot process and build runs in (bubblewrap, or namespaces.py)
    bridge.py     the stdio bridge
    relay.py      the tcp relay, for bots whose ZeroMQ has no ipc://
    clock.py      time controls, clocks, deadlines (the startup wait's and every move's)
    build.py      the one build runner
    manifest.py   bot.toml
    record.py     game records
    check.py      the conformance check: crafted scenarios fed to the game loop
"""
