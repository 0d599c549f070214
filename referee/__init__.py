"""Running matches: imports only ``protocol`` and ``referee``.

    referee.py    Referee: warm seats across games, one hub, ``play``
    game.py       the one game loop: announcements, clocks, deadlines, fault policy, the record
    seats/        the seat interface and its kinds: ZeroMQ (process, remote), in-process, scripted
    hub.py        the one poller over the ROUTER socket and the seats' descriptors
    transport.py  the ROUTER socket and token authentication
    curve.py      the CURVE gate of the tcp endpoint for remote seats
    launch.py     launching, logging and stopping bot processes
    sandbox.py    the sandbox every bot process and build runs in (bubblewrap, or namespaces.py)
    bridge.py     the stdio bridge
    relay.py      the tcp relay, for bots whose ZeroMQ has no ipc://
    clock.py      time controls, clocks, deadlines (the startup wait's and every move's)
    pool.py       workers that each own one referee: several games at once
    build.py      the one build runner
    manifest.py   bot.toml
    record.py     game records
    check.py      the conformance check: crafted scenarios fed to the game loop
"""
