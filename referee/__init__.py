"""Running matches: imports only ``protocol`` and ``referee``.

    referee.py    Referee: warm seats across games, one hub, ``play``
    game.py       the one game loop: announcements, clocks, fault policy, the record
    seat.py       the seat interface and its states
    hub.py        the one poller over the ROUTER socket and the seats' descriptors; ZeroMQ seats' TURN/MOVE
    local.py      BotSpec and ProcessSeat: bot processes from a folder, over ZeroMQ or the stdio bridge
    remote.py     remote seats over tcp with CURVE
    inprocess.py  in-process and scripted seats
    process.py    launching, logging and stopping bot processes
    bridge.py     the stdio bridge
    transport.py  the ROUTER socket and token authentication
    clock.py      time controls, clocks, deadlines
    build.py      the one build runner
    manifest.py   bot.toml
    record.py     game records
    check.py      the conformance check: crafted scenarios fed to the game loop
"""
