"""Running matches: imports only ``protocol`` and ``referee``.

    referee.py    Referee: warm seats across games, one hub, ``play``
    settings.py   RefereeSettings: the one frozen value a referee is made with (time control, limits, sandbox...)
    pool.py       referees on threads or in worker processes, each made from one RefereeSettings
    game.py       the one game loop: announcements, clocks, fault policy, the record
    observers.py  telling an observer of a game's events: its failure logged, never raised
    hub.py        the one poller over the ROUTER socket and the seats' descriptors; ZeroMQ seats' TURN/MOVE
    seats/        the seat interface (base.py) and its kinds: bot processes (process.py, zmq.py), remote
                  seats over tcp with CURVE (remote.py), in-process and scripted seats (inprocess.py)
    launch.py     launching, logging and stopping bot processes
    limits.py     Limits: a bot's resource limits, their names, rlimits and prlimit arguments
    sandbox.py    the sandbox (bubblewrap, or the kernel's namespaces through namespaces.py)
    bridge.py     the stdio bridge; relay.py: a tcp bot's relay inside its sandbox
    transport.py  the ROUTER socket and token authentication; curve.py: remote seats' CURVE gate
    clock.py      time controls, clocks, deadlines
    build.py      the one build runner
    manifest.py   bot.toml
    record.py     game records
    check.py      the conformance check: crafted scenarios fed to the game loop
"""
