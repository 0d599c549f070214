"""Remote seats: a bot started by hand (another machine, another terminal) joins a match over tcp with CURVE.

    with Referee(listen="tcp://0.0.0.0:7000", announce=lambda c: print(c.instructions())) as referee:
        referee.play([BotSpec("alice", None, remote=True), BotSpec("greedy", Path("bots/greedy"))], ...)

``RemoteSeat`` has no process of ours: the hub's CURVE gate (``referee/curve.py``) issues its
credentials, which are announced for the organiser to hand to the bot's owner.
"""

from __future__ import annotations

import logging

from hexarena.referee.seats.zmq import ZmqSeat

log = logging.getLogger("hexarena.referee.remote")


class RemoteSeat(ZmqSeat):
    """A seat whose bot runs elsewhere: its credentials are announced; nothing to read, stop or reap.

    It never "exits": a bot that goes away is a ``timeout``.
    """

    def start_bot(self, env: dict[str, str]) -> None:
        self.credentials = self.hub.gate().admit(self.name, env["HEXARENA_TOKEN"])
        if self.hub.announce is not None:
            self.hub.announce(self.credentials)

    def note(self, text: str) -> None:
        log.info("remote seat %s: %s", self.name, text)
