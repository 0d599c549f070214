"""The Python client of protocol v1: a bot is one function.

    from hexarena.protocol.client import run_bot

    def choose(game, state) -> int:          # game: GameInfo; state: hexarena.protocol.rules.State
        return game.rng.choice(state.legal_moves())

    run_bot(choose)

``run_bot`` reads the environment (PROTOCOL.md §2), connects, says hello (§3), and
plays every game the referee sends (§4), keeping a rules-engine ``State`` in sync
from the announcements, until the referee says goodbye. ``Connection`` is the
lower layer for bots (and tests) that want to drive the conversation themselves.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import zmq

from hexarena.protocol import codec
from hexarena.protocol.errors import ProtocolError
from hexarena.protocol.rules import Options, Rules, State

# a remote seat over tcp (referee/seats/remote.py): the referee's public key and this bot's CURVE key pair
CURVE_VARIABLES = ("HEXARENA_SERVER_KEY", "HEXARENA_PUBLIC_KEY", "HEXARENA_SECRET_KEY")


class Connection:
    """A DEALER socket connected to the referee, speaking codec messages."""

    def __init__(self, endpoint: str, context: zmq.Context | None = None, curve: tuple[str, str, str] | None = None) -> None:
        """``curve``: (server public key, client public key, client secret key), Z85, for a tcp seat with CURVE."""
        self.context = context or zmq.Context.instance()
        self.socket = self.context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 1000)  # let a last MOVE leave before exit
        if curve is not None:
            self.socket.curve_serverkey, self.socket.curve_publickey, self.socket.curve_secretkey = (
                key.encode() for key in curve)
        self.socket.connect(endpoint)

    def send(self, message: codec.Message) -> None:
        self.socket.send_string(message.to_text())

    def recv(self, timeout_ms: int | None = None) -> codec.Message:
        """The next message from the referee; ``TimeoutError`` if none comes within ``timeout_ms``."""
        if timeout_ms is not None and not self.socket.poll(timeout_ms):
            raise TimeoutError(f"no message from the referee within {timeout_ms} ms")
        return codec.parse(self.socket.recv())

    def hello(self, token: str, name: str = "", timeout_ms: int | None = 30_000) -> codec.Welcome:
        """§3: send HELLO and wait for WELCOME."""
        self.send(codec.Hello(codec.VERSION, token, name))
        reply = self.recv(timeout_ms)
        if not isinstance(reply, codec.Welcome):
            raise ProtocolError(f"expected WELCOME after HELLO, got {reply.to_text()[:60]!r} (§3.2)")
        return reply

    def close(self) -> None:
        self.socket.close()


@dataclass
class GameInfo:
    """One game as a bot sees it: the GAME message, the rules engine for it, a seeded RNG, the clock."""

    message: codec.Game
    rules: Rules
    rng: random.Random
    clock: codec.Turn | None = None  # the last TURN: .left_ms, .limit_ms
    events: list[codec.Message] = field(default_factory=list)  # DRAWN/FORFEIT so far, in order
    notes: list[str] = field(default_factory=list)  # this move's INFO texts so far (``info``)

    def info(self, text: str) -> None:
        """A note on the move being chosen (call it inside ``choose``): sent as ``INFO`` just before the MOVE,
        kept with the move in the game's record (§4.8; at most 16 a move, 256 bytes of UTF-8 each, one line)."""
        self.notes.append(str(text))

    @property
    def board(self):
        return self.rules.board

    @property
    def seat(self) -> int:
        return self.message.seat

    @property
    def seed(self) -> int:
        return self.message.seed

    @property
    def id(self) -> str:
        return self.message.game


_rules_cache: dict[tuple, Rules] = {}


def rules_for(game: codec.Game) -> Rules:
    """The rules engine for a GAME message (cached: a bot plays many games of one board)."""
    key = (game.board, game.players, game.misere, game.border)
    rules = _rules_cache.get(key)
    if rules is None:
        rules = Rules(game.board, Options(game.players, game.misere, game.border))
        _rules_cache[key] = rules
    predrawn = rules.start().drawn
    if predrawn != sum(1 << line for line in game.predrawn):
        raise ProtocolError("GAME: 'predrawn' differs from the border of the board (§4.1)")
    return rules


Choose = Callable[[GameInfo, State], int]


class Player:
    """A bot's side of a conversation, without the socket: follows GAME, DRAWN, FORFEIT and END,
    answers each TURN with ``choose``. ``play`` drives it from a connection; the referee's
    in-process seats (``referee/seats/inprocess.py``) drive it directly."""

    def __init__(self, choose: Choose, on_end: Callable[[GameInfo, codec.End], None] | None = None) -> None:
        self.choose = choose
        self.on_end = on_end
        self.game: GameInfo | None = None
        self.state: State | None = None
        self.infos: list[codec.Info] = []  # the INFO of the last TURN answered, to send before its MOVE

    def receive(self, message: codec.Message) -> codec.Move | None:
        """Take one message from the referee; the MOVE to send for a TURN, else None. ProtocolError if unexpected."""
        game, state = self.game, self.state
        if isinstance(message, codec.Game):
            self.game = GameInfo(message, rules_for(message), random.Random(f"{message.seed}:{message.seat}"))
            self.state = self.game.rules.start()
        elif isinstance(message, codec.Drawn) and state is not None:
            self.state = state.apply(message.line).state
            game.events.append(message)
        elif isinstance(message, codec.Forfeit) and state is not None:
            self.state = state.forfeit(message.seat)
            game.events.append(message)
        elif isinstance(message, codec.Turn) and state is not None:
            game.clock, game.notes = message, []
            line = int(self.choose(game, state))
            self.infos = [codec.Info(message.id, text) for text in game.notes]
            return codec.Move(message.id, line)
        elif isinstance(message, codec.End) and game is not None:
            if self.on_end is not None:
                self.on_end(game, message)
            self.game = self.state = None
        else:
            raise ProtocolError(f"unexpected message {message.to_text()[:60]!r} (§4)")
        return None

    def take_notes(self) -> list[str]:
        """The texts of the last TURN's INFO that a referee keeps (§4.8's limits), for an in-process seat."""
        kept = []
        for info in self.infos[:codec.INFO_PER_MOVE]:
            try:
                kept.append(codec.Info.from_text(f"{info.id} {info.text}").text)
            except ProtocolError:
                pass
        self.infos = []
        return kept


def play(connection: Connection, choose: Choose, on_end: Callable[[GameInfo, codec.End], None] | None = None) -> None:
    """Play games on an authenticated connection until BYE (§4, §4.7)."""
    player = Player(choose, on_end)
    while True:
        message = connection.recv()
        if isinstance(message, codec.Bye):
            return
        reply = player.receive(message)
        if reply is not None:
            for info in player.infos:
                connection.send(info)
            player.infos = []
            connection.send(reply)


def run_bot(
    choose: Choose,
    *,
    name: str = "",
    on_end: Callable[[GameInfo, codec.End], None] | None = None,
    env: Mapping[str, str] = os.environ,
) -> None:
    """Connect with ``HEXARENA_ENDPOINT`` and ``HEXARENA_TOKEN`` (§2), play until BYE, then return."""
    missing = [key for key in ("HEXARENA_ENDPOINT", "HEXARENA_TOKEN") if not env.get(key)]
    if missing:
        sys.exit(f"bot: {' and '.join(missing)} not set: bots are started by the referee "
                 "(hexarena match BOT BOT; see protocol/PROTOCOL.md §2)")
    keys = [env.get(key, "") for key in CURVE_VARIABLES]
    if any(keys) and not all(len(key) == 40 for key in keys):
        sys.exit(f"bot: a remote seat needs all of {', '.join(CURVE_VARIABLES)} (40-character Z85 keys)")
    connection = Connection(env["HEXARENA_ENDPOINT"], curve=tuple(keys) if any(keys) else None)
    try:
        name = "_".join((name or env.get("HEXARENA_NAME", "")).split())[:200]  # one word (§3.1)
        try:
            connection.hello(env["HEXARENA_TOKEN"], name)
        except TimeoutError:  # over tcp with CURVE, a refused key looks like silence
            sys.exit(f"bot: no WELCOME from {env['HEXARENA_ENDPOINT']}: the match is over, the token was used, "
                     "or (remote seat) the CURVE keys are not the ones the referee issued")
        play(connection, choose, on_end)
    finally:
        connection.close()
