"""Seats: whoever plays one place of a game, as the one game loop (``referee/game.py``) sees it.

    base.py       the interface: ``Seat``, ``SeatSpec`` and the states NEW → STARTING → READY → CLOSED
    zmq.py        ZmqSeat, the base of ZeroMQ seats: handshake, TURN/MOVE by the move's deadline, BYE
    process.py    BotSpec and ProcessSeat: bot processes from a folder, over ZeroMQ or the stdio bridge
    remote.py     RemoteSeat: a bot started by hand elsewhere, over tcp with CURVE (``referee/curve.py``)
    inprocess.py  InProcessSeat (a ``choose`` function in the referee's process) and ScriptedSeat (tests)
"""
