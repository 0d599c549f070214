"""The one game loop: announcements, clocks, the fault policy and the record of one game.

    record = Game(seats, config, game_id="g1", seed=7, time_control=tc).run()

Every game hexarena plays — a match, a league, the conformance check's crafted games, a
duel between brains, the tests — runs here, over seats of any kind (``referee/seats/base.py``).
Faults are results (PROTOCOL.md §7): with two players the offender loses and the game
ends; with three or four it is put out and the others play on; under the ``substitute``
policy the referee draws a random line for the faulting seat and the bot plays on.

``prelude`` (lines, or ``("forfeit", seat)``) is played before the first TURN and
announced like any move: the check uses it for crafted positions. ``grace`` waits that
much longer than the clock allows before a reply is a timeout (the check judges lateness
itself, from the record's think times). ``observer`` (a ``GameObserver``, e.g. the server's
live results) hears of the game's start, each recorded move and its end; an observer that
raises is logged once and the game plays on (``referee/observers.py``).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, Protocol, get_args

from hexarena.protocol import codec
from hexarena.protocol.errors import BotFault
from hexarena.protocol.rules import State, Step
from hexarena.protocol.errors import IllegalMove
from hexarena.referee.clock import TimeControl
from hexarena.referee.observers import tell
from hexarena.referee.record import BoardConfig, Forfeit, GameRecord, HostStall, Result, move_records
from hexarena.referee.seats.base import Seat, SeatState
from hexarena.referee.stalls import host_stall
from hexarena.referee.watchdog import Watchdog

FaultPolicy = Literal["forfeit", "substitute"]  # what a fault costs (module docstring); league files name one
FAULT_POLICIES: tuple[str, ...] = get_args(FaultPolicy)
GONE = ("crashed", "no_connection")  # faults after which a bot cannot play on, whatever the policy

Prelude = Sequence[int | tuple[str, int]]
log = logging.getLogger("hexarena.referee.game")


class GameObserver(Protocol):
    """Hears of a game as it is played (``ply``: the move's index in the record's ``moves``; ``ms``: its think time)."""

    def started(self, game_id: str, seats: list[str], config: BoardConfig) -> None: ...

    def moved(self, game_id: str, ply: int, seat: int, line: int, ms: float) -> None: ...

    def ended(self, record: GameRecord) -> None: ...


class Game:
    """One game in progress: the rules state, the clocks, the moves and faults so far."""

    def __init__(self, seats: list[Seat], config: BoardConfig, *, game_id: str, seed: int,
                 time_control: TimeControl, fault_policy: str = "forfeit", log_dir: Path | None = None,
                 prelude: Prelude = (), grace: float = 0.0, observer: GameObserver | None = None,
                 versions: Sequence[str] = (), replay: int = 0) -> None:
        self.seats = seats
        self.versions = list(versions) if any(versions) else []  # each seat's name@hash for the record
        self.config = config
        self.game_id = game_id
        self.seed = seed
        self.time_control = time_control
        self.substitute = fault_policy == "substitute"
        self.log_dir = log_dir
        self.prelude = prelude
        self.grace = grace
        self.state: State = config.rules().start()
        self.rng: random.Random | None = None  # the referee's own draws (substitute policy), seeded on first use
        self.clocks = [time_control.clock() for _ in seats]
        self.moves: list[dict] = []  # MoveRecord fields: validated into MoveRecords once, at the end
        self.forfeits: list[Forfeit] = []
        self.dead: set[int] = set()  # seats whose bot is gone (substitute policy plays for them)
        self.faulted: set[int] = set()
        self.decided: tuple[str, int] | None = None  # (termination, offender) of a 2-player forfeit
        self.pending: list[codec.Message] = []  # announcements every seat is still to hear (see turn)
        self.observer = observer
        self.observer_failed = False
        # a replay after a host stall (``Referee.play``) is a game of its own to the observer: ``<id>.replay<n>``
        self.live_id = f"{game_id}.replay{replay}" if replay else game_id
        self.observed_as = f"game {self.live_id}"  # its failures' log lines (formatted once, not per move)
        self.begun = time.perf_counter()
        self.lag_since: float | None = None  # the game's start, once a seat's CPU time was measured
        self.logs: list[Path] = []  # each seat's log of this game (``log_dir``)

    def run(self) -> GameRecord:
        started = datetime.now(UTC)
        self.begun = time.perf_counter()
        if self.observer is not None:
            self.observe("started", self.live_id, [seat.name for seat in self.seats], self.config)
        self.open()
        while not self.state.is_over() and self.decided is None:
            self.turn(self.state.to_move)
        termination, offender = self.decided or ("completed", None)
        outcome = self.state.outcome()
        self.announce(codec.End(termination, outcome.scores, outcome.placements, offender))
        for seat in self.faulted:
            self.seats[seat].retire()  # restarted before its next game
        result = Result(scores=list(outcome.scores), placements=list(outcome.placements), termination=termination,
                        offender=offender, forfeits=self.forfeits)
        record = GameRecord(id=self.game_id, config=self.config, seats=[seat.name for seat in self.seats],
                            time_control=self.time_control, seed=self.seed, started=started,
                            finished=datetime.now(UTC), moves=move_records(self.moves), result=result,
                            opening=self.opening(), versions=self.versions,
                            lag_ms=None if self.lag_since is None else Watchdog.shared().lag_ms(self.lag_since))
        if self.observer is not None:
            self.observe("ended", record.model_copy(update={"id": self.live_id}) if self.live_id != self.game_id
                         else record)
        return record

    def observe(self, event: str, *args) -> None:
        """Tell the observer; its failure is logged once per game and never stops the game."""
        if tell(self.observer, event, *args, what=self.observed_as, then="the game plays on", logger=log,
                quiet=self.observer_failed):
            self.observer_failed = True

    def opening(self) -> list[int]:
        """The prelude as the record's start position: its lines, when it has no forfeit (the check's crafted ones)."""
        lines = list(self.prelude)
        return [] if any(isinstance(step, tuple) for step in lines) else lines

    def open(self) -> None:
        """GAME to every seat (each with its own log), the prelude, then the faults of seats that did not start."""
        names = tuple(seat.name for seat in self.seats)
        time_spec = self.time_control.spec()
        for number, seat in enumerate(self.seats):
            log = None
            if self.log_dir is not None:
                log = self.log_dir / f"{self.game_id.replace('/', '_')}.seat{number}.{seat.name}.log"
                self.logs.append(log)
            seat.begin_game(log)  # a seat that failed to start logs its output and fault there too
            if seat.state is SeatState.READY:
                seat.send(self.config.game_message(self.game_id, number, names, time_spec, self.seed))
        for step in self.prelude:
            if isinstance(step, tuple):
                self.state = self.state.forfeit(step[1])
                self.announce(codec.Forfeit(step[1], "timeout"))
            else:
                self.draw(self.state.to_move, step, 0.0, record=False)
        self.flush()
        for number, seat in enumerate(self.seats):
            if seat.state is not SeatState.READY:
                self.fault(number, seat.fault or BotFault("no_connection", "not running"))

    def turn(self, number: int) -> None:
        seat, clock = self.seats[number], self.clocks[number]
        if number in self.dead:
            self.draw(number, self.random_line(), 0.0, substituted=True)
            return
        left_ms, limit_ms = clock.request()
        cpu_before = self.cpu_ms(seat)  # read before anything leaves: the sends below go back to back
        # the mover hears the news, then its TURN, then the others hear it: each bot's order is kept, the mover
        # starts thinking sooner, and the sends leave together (ZeroMQ's I/O thread wakes once for them)
        sent = seat.request(left_ms, limit_ms, len(self.moves) + 1, self.pending)
        self.flush(heard=seat)
        deadline = clock.deadline(sent, self.grace)  # counted from the moment the TURN left
        try:
            line, seconds = seat.await_move(deadline)
            try:
                step = self.state.apply(line)  # the engine's own check, once: it words the fault too
            except IllegalMove as exc:
                raise BotFault("illegal_line", str(exc)) from None
        except BotFault as fault:
            stall = None
            if fault.reason == "timeout" and (cpu_ms := self.cpu_ms(seat, cpu_before)) is not None:
                stall = host_stall(cpu_ms, Watchdog.shared().lag_ms(sent), limit_ms)
            self.fault(number, fault, stall)
            return
        clock.spend(seconds)
        self.draw(number, line, seconds * 1000, step=step, cpu_ms=self.cpu_ms(seat, cpu_before),
                  notes=seat.take_notes())

    def cpu_ms(self, seat: Seat, before: float | None = None) -> float | None:
        """The seat's bot's CPU time so far (ms), or since ``before``; None where the seat has no process of ours."""
        used = seat.cpu_ms()
        if used is None:
            return None
        self.lag_since = self.lag_since or self.begun
        return used if before is None else round(max(0.0, used - before), 3)

    def draw(self, number: int, line: int, ms: float, substituted: bool = False, step: Step | None = None,
             record: bool = True, cpu_ms: float | None = None, notes: list[str] | None = None) -> None:
        """Draw ``line`` for seat ``number``; its DRAWN waits for the next TURN or ``flush``."""
        step = step or self.state.apply(line)
        self.state = step.state
        if record:
            ms = round(ms, 3)
            self.moves.append({"seat": number, "line": line, "closed": step.closed, "ms": ms,
                               "substituted": substituted, **({} if cpu_ms is None else {"cpu_ms": cpu_ms})})
            if notes:  # the bot's INFO on this move (§4.8)
                self.moves[-1]["info"] = notes
            if self.observer is not None:
                self.observe("moved", self.live_id, len(self.moves) - 1, number, line, ms)
        self.pending.append(codec.drawn(number, line, step.closed))

    def flush(self, heard: Seat | None = None) -> None:
        """Send every seat (but ``heard``, which has them) the announcements held back for the next TURN."""
        if not self.pending:
            return
        news, self.pending = self.pending, []
        for seat in self.seats:
            if seat is not heard:
                for message in news:
                    seat.send(message)

    def announce(self, message: codec.Message) -> None:
        self.pending.append(message)
        self.flush()

    def random_line(self) -> int:
        """A free line drawn by the referee, from its generator seeded with the game's seed."""
        if self.rng is None:
            self.rng = random.Random(self.seed)
        return self.rng.choice(self.state.legal_moves())

    def fault(self, number: int, fault: BotFault, stall: HostStall | None = None) -> None:
        """§7: record the fault (a timeout with the host's stall, if it was one: ``referee/stalls.py``); then
        forfeit the seat, or draw a random line for it (substitute policy)."""
        seat = self.seats[number]
        self.forfeits.append(Forfeit(seat=number, reason=fault.reason, detail=fault.detail[:500],
                                     move=len(self.moves), substituted=self.substitute, host_stall=stall))
        self.faulted.add(number)
        if fault.reason in GONE or not self.substitute:
            seat.retire(fault)
            self.dead.add(number)
        else:
            seat.note(f"fault {fault.reason}: {fault.detail}")
        if self.substitute:
            if number == self.state.to_move and not self.state.is_over():
                self.draw(number, self.random_line(), 0.0, substituted=True)
            return
        self.state = self.state.forfeit(number)
        if self.config.players == 2:
            if self.decided is None:
                self.decided = (fault.reason, number)
            return
        self.announce(codec.Forfeit(number, fault.reason))
