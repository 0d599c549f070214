"""The referee: plays games between bot processes over protocol v1 and records what happened.

    with Referee(log_dir=Path("logs"), time_control=TimeControl.parse("300ms")) as referee:
        record = referee.play([BotSpec("greedy", Path("bots/greedy")), BotSpec("random", Path("bots/random"))],
                              BoardConfig(size="3x3"), game_id="g1", seed=7)

Bots are started on first use and kept running across games; a bot that faulted is
stopped and started again before its next game. Faults are results (``GameRecord.result``),
never exceptions: the referee raises only ``ConfigError`` (a broken manifest, a seat count
that does not fit the board) and for its own bugs.

A bot moves through ``starting`` (launched, token admitted) → ``ready`` (said HELLO) →
``closed``; a TURN it has not answered yet is its ``outstanding`` request.
"""

from __future__ import annotations

import random
import secrets
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Self

from protocol import codec
from protocol.errors import BotFault, ConfigError, ProtocolError
from referee.clock import Deadline, TimeControl
from referee.manifest import Manifest, load_manifest
from referee.process import BotProcess, Limits, stop_all
from referee.record import BoardConfig, Forfeit, GameRecord, MoveRecord, Result
from protocol.rules import IllegalMove, State, Step
from referee.transport import Hook, Transport

FAULT_POLICIES = ("forfeit", "substitute")
BUILD_TIMEOUT = 300.0
# each folder's build outcome in this process (any referee, any thread): None when it built, else its fault
_BUILDS: dict[Path, BotFault | None] = {}
_BUILD_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()
INBOX_LIMIT = 100  # messages kept from a bot between its turns; more is a fault (§6.4)
DEFAULT_TIME = TimeControl()  # 1 s per move, 10 s to start
DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class BotSpec:
    """What to run for a seat."""

    name: str  # shown in records (e.g. "greedy" or "greedy@3fa2c1")
    folder: Path | None  # the bot's folder (contains bot.toml); None for a remote seat
    remote: bool = False  # a bot started by hand elsewhere that joins over tcp with CURVE (referee/remote.py)


@dataclass(eq=False)
class _Bot:
    """One bot process as the referee sees it (hashable by identity: the transport's owner)."""

    spec: BotSpec
    label: str  # spec.name, with "#2" for a second copy in the same game
    process: BotProcess | None = None
    status: str = "starting"  # starting → ready → closed
    launched: float = 0.0
    last_id: int = 0  # request ids sent so far are 1 … last_id (§6)
    outstanding: int | None = None
    inbox: deque = field(default_factory=deque)
    fault: BotFault | None = None  # a fault found before the game (no_connection, crashed)
    exit_seen: bool = False  # the poller saw the process exit
    flooded: bool = False  # sent more unrequested messages than INBOX_LIMIT

    @property
    def alive(self) -> bool:
        return self.status != "closed"


class Referee:
    """Plays games; keeps bots running between them. One Referee belongs to one thread."""

    def __init__(
        self,
        log_dir: Path | None = None,
        time_control: TimeControl = DEFAULT_TIME,
        fault_policy: str = "forfeit",
        *,
        limits: Limits = DEFAULT_LIMITS,
        endpoint: str | None = None,
        hook: Hook | None = None,
        stop_grace: float = 1.0,
        listen: str = "tcp://127.0.0.1:0",
        announce: Callable | None = None,
    ) -> None:
        if fault_policy not in FAULT_POLICIES:
            raise ConfigError(f"fault policy {fault_policy!r} is not one of: {', '.join(FAULT_POLICIES)}")
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.time_control = time_control
        self.fault_policy = fault_policy
        self.limits = limits
        self.stop_grace = stop_grace
        self.transport = Transport(endpoint, hook)
        self._bots: dict[tuple[BotSpec, int], _Bot] = {}
        self._fds: dict[int, _Bot] = {}
        self._retiring: list[_Bot] = []
        self.listen = listen  # the tcp endpoint for remote seats, bound on first use
        self.announce = announce  # called with each remote seat's Credentials
        self.gate = None  # referee.remote.Gate, once a remote seat is admitted

    @property
    def endpoint(self) -> str:
        return self.transport.endpoint

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- one game ---------------------------------------------------------------------------

    def play(self, seats: list[BotSpec], config: BoardConfig, *, game_id: str, seed: int | None = None) -> GameRecord:
        """Play one game; bots are started on first use and kept running across games; restarted after a fault."""
        if len(seats) != config.players:
            raise ConfigError(f"{len(seats)} bots for a {config.players}-player game")
        started = datetime.now(UTC)
        if seed is None:
            seed = secrets.randbelow(2**31)
        bots = self.seat_bots(seats)
        self.start(bots)
        game = _Game(self, bots, config, game_id, seed)
        try:
            result = game.run()
        finally:
            for bot in bots:
                if bot.process is not None:
                    bot.process.close_log()
            self.finish_retiring()
        return GameRecord(
            id=game_id, config=config, seats=[spec.name for spec in seats], time_control=str(self.time_control),
            seed=seed, started=started, finished=datetime.now(UTC), moves=game.moves, result=result,
        )

    # ---- the session steps: ``play`` is made of these, and referee/check.py drives them one by one ---
    # to craft its test games: seat_bots, build, start, request_move / await_move, retire, finish_retiring

    def seat_bots(self, seats: list[BotSpec]) -> list[_Bot]:
        """The bot for each seat: the one kept running from earlier games, else a new one (not started)."""
        bots = []
        for spec in seats:
            copy = sum(1 for other in bots if other.spec == spec)
            bot = self._bots.get((spec, copy))
            if bot is not None and bot.alive and bot.process is not None and bot.process.exited():
                self.retire(bot)  # it died between games: start it again rather than forfeit
            if bot is None or not bot.alive:
                bot = _Bot(spec, spec.name if copy == 0 else f"{spec.name}#{copy + 1}")
                self._bots[(spec, copy)] = bot
            bots.append(bot)
        return bots

    def start(self, bots: list[_Bot]) -> None:
        """Launch the bots not running yet and wait (startup allowance) until each has said HELLO.

        Only a bot being launched reads its manifest; a broken one is the bot's fault, not the referee's.
        """
        waiting = []
        for bot in bots:
            if bot.status != "starting" or bot.process is not None:
                continue
            bot.fault = None
            manifest = None
            try:
                if not bot.spec.remote:
                    try:
                        manifest = load_manifest(bot.spec.folder)
                    except ConfigError as exc:
                        raise BotFault("no_connection", str(exc)) from None
                    self.build(bot.spec.folder, manifest)
                token = secrets.token_hex(16)
                env = {"HEXARENA_ENDPOINT": self.endpoint, "HEXARENA_TOKEN": token,
                       "HEXARENA_PROTOCOL": codec.VERSION, "HEXARENA_NAME": bot.spec.name}
                try:
                    bot.process = self._launch(bot.spec, manifest, env)
                except OSError as exc:
                    raise BotFault("no_connection", f"cannot start {manifest.command}: {exc}") from None
            except BotFault as fault:
                bot.fault, bot.status = fault, "closed"
                continue
            self.transport.admit(token, bot)
            for fd in bot.process.fds:
                self._fds[fd] = bot
                self.transport.watch(fd)
            bot.launched = time.perf_counter()
            waiting.append(bot)
        deadline = Deadline(time.perf_counter() + self.time_control.startup)
        while True:
            for bot in waiting:
                if bot.status == "starting" and bot.process.exited():
                    self.retire(bot, BotFault("crashed", "before saying HELLO: " + bot.process.describe_exit()))
            if deadline.passed() or not any(bot.status == "starting" for bot in waiting):
                break
            self._poll(deadline)
        for bot in waiting:
            if bot.status == "starting":
                seconds = f"{self.time_control.startup:g}"
                self.retire(bot, BotFault("no_connection", f"no HELLO within the startup allowance of {seconds} s"))

    def _launch(self, spec: BotSpec, manifest: Manifest | None, env: dict[str, str]):
        """The bot's process; for a remote seat a stand-in whose credentials are announced (referee/remote.py)."""
        if not spec.remote:
            return BotProcess.start(spec.folder, manifest, env, self.limits)
        from referee.remote import Gate, RemoteSeat

        if self.gate is None:
            self.gate = Gate(self.transport, self.listen)
        seat = RemoteSeat(self.gate.admit(spec.name, env["HEXARENA_TOKEN"]))
        if self.announce is not None:
            self.announce(seat.credentials)
        return seat

    def build(self, folder: Path, manifest: Manifest) -> None:
        """Run the manifest's build once per folder and process; BotFault("no_connection") if it failed or hung.

        The league's worker threads share registry snapshots: one builds, the others wait for it.
        """
        if not manifest.build:
            return
        with _LOCKS_LOCK:
            lock = _BUILD_LOCKS.setdefault(folder, threading.Lock())
        with lock:
            if folder not in _BUILDS:
                try:
                    self._run_build(folder, manifest)
                    _BUILDS[folder] = None
                except BotFault as fault:
                    _BUILDS[folder] = fault
        if _BUILDS[folder] is not None:
            raise _BUILDS[folder]

    @staticmethod
    def _run_build(folder: Path, manifest: Manifest) -> None:
        try:
            done = subprocess.run(manifest.build, check=False, cwd=folder, capture_output=True, timeout=BUILD_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BotFault("no_connection", f"build {manifest.build} failed: {exc}") from None
        if done.returncode != 0:
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
            raise BotFault("no_connection", f"build {manifest.build} exited {done.returncode}: {tail[0][:200]}")

    # ---- waiting, in one place ----------------------------------------------------------------

    def _poll(self, deadline: Deadline) -> None:
        """Wait once: route messages to inboxes (HELLOs complete handshakes), read output, note exits."""
        messages, fds = self.transport.poll(deadline)
        for message in messages:
            bot = message.owner
            if bot.status == "starting":
                self._greet(bot, message.data)
            elif len(bot.inbox) < INBOX_LIMIT:
                bot.inbox.append(message)
            else:
                bot.flooded = True
        for fd in fds:
            bot = self._fds.get(fd)
            if bot is None or bot.process is None:
                continue
            if fd == bot.process.exit_fd:
                bot.exit_seen = True
                self._unwatch(fd)
            elif not bot.process.read(fd):
                self._unwatch(fd)

    def _greet(self, bot: _Bot, data: bytes | None) -> None:
        hello = codec.parse(data)  # the transport authenticated it: a valid HELLO
        if hello.version != codec.VERSION:
            self.retire(bot, BotFault("malformed_message", f"HELLO names protocol {hello.version!r}, not v1 (§3.5)"))
            return
        self.transport.send(bot, codec.Welcome().to_text())
        bot.status = "ready"

    def _unwatch(self, fd: int) -> None:
        if self._fds.pop(fd, None) is not None:
            self.transport.unwatch(fd)

    def request_move(self, bot: _Bot, left_ms: int, limit_ms: int) -> float:
        """Send TURN (§4.4); returns the send time."""
        bot.last_id += 1
        bot.outstanding = bot.last_id
        self.transport.send(bot, codec.Turn(bot.last_id, left_ms, limit_ms).to_text())
        return time.perf_counter()

    def await_move(self, bot: _Bot, deadline: float, limit_ms: int | None = None) -> tuple[int, float]:
        """The line of the bot's reply to its outstanding TURN and when it came; BotFault otherwise (§6, §7).

        ``limit_ms``, the move's limit as sent in TURN, only words the timeout's detail.
        """
        wait = Deadline(deadline)
        while True:
            if bot.flooded:  # checked on every pass: a flood that fills the inbox mid-turn drops the reply too
                bot.flooded = False  # one fault per flood: under the substitute policy the bot plays on
                bot.inbox.clear()
                raise BotFault("malformed_message", f"more than {INBOX_LIMIT} messages between turns (§6.4)")
            if not bot.inbox:
                # the poller watches the exit descriptor, so no system call per check where there is one
                if bot.exit_seen or (bot.process.exit_fd is None and bot.process.exited()):
                    self._poll(Deadline(time.perf_counter()))  # collect a reply sent just before the exit
                    if not bot.inbox:
                        raise BotFault("crashed", bot.process.describe_exit())
                elif wait.passed():
                    margin_ms = round(self.time_control.margin * 1000)
                    within = f"within {limit_ms} ms (+{margin_ms} ms margin)" if limit_ms is not None else "in time"
                    raise BotFault("timeout", f"no MOVE {within}")
                else:
                    self._poll(wait)
                continue
            received = bot.inbox.popleft()
            if received.at > deadline:
                raise BotFault("timeout", f"MOVE came {1000 * (received.at - deadline):.0f} ms after the deadline")
            if received.data is None:
                raise BotFault("malformed_message", "a multi-frame message (§1.2)")
            try:
                message = codec.parse(received.data)
            except ProtocolError as exc:
                raise BotFault("malformed_message", str(exc)) from None
            if not isinstance(message, codec.Move):
                raise BotFault("malformed_message", f"{message.to_text()[:60]!r} is not a MOVE (§6.4)")
            if message.id == bot.outstanding:
                bot.outstanding = None
                return message.line, received.at
            if 0 < message.id < bot.outstanding:
                self._note(bot, f"late reply {message.to_text()!r} ignored (§6.2)")
                continue
            raise BotFault("wrong_request", f"MOVE echoes id {message.id}, the request was {bot.outstanding} (§6.3)")

    # ---- stopping bots ------------------------------------------------------------------------

    def _note(self, bot: _Bot, text: str) -> None:
        if bot.process is not None:
            bot.process.note(text)

    def retire(self, bot: _Bot, fault: BotFault | None = None, reason: str = "") -> None:
        """Stop a bot (BYE now, signals at the end of the game); it is started afresh next time."""
        if fault is not None:
            bot.fault = fault
            if bot.process is not None:
                bot.process.drain()
                bot.process.note(f"fault {fault.reason}: {fault.detail}")
                tail = bot.process.stderr_tail.decode(errors="replace")
                if tail:
                    bot.process.note("stderr tail:\n" + tail)
        if bot.status == "closed":
            return
        self.transport.send(bot, codec.Bye(f"fault {fault.reason}" if fault else reason).to_text())
        self.transport.forget(bot)
        bot.status = "closed"
        if bot.process is not None:
            if fault is not None:
                bot.process.signal_group(signal.SIGTERM)  # a faulted bot gets no grace
            self._retiring.append(bot)

    def finish_retiring(self, grace: float = 0.2) -> None:
        """Wait for the bots told BYE to exit, then SIGTERM and SIGKILL their process groups."""
        if not self._retiring:
            return
        bots, self._retiring = self._retiring, []
        for bot in bots:
            for fd in bot.process.fds:
                self._unwatch(fd)
        # a remote seat's stand-in has no process to wait for: waiting would only cost the graces
        local = [bot.process for bot in bots if isinstance(bot.process, BotProcess)]
        stop_all(local, grace=grace, term_grace=grace)
        for bot in bots:
            if not isinstance(bot.process, BotProcess):
                bot.process.close()
            bot.process = None

    def close(self) -> None:
        """Say goodbye to every bot and stop every process group; then close the socket."""
        for bot in self._bots.values():
            self.retire(bot, reason="match over")
        self._bots.clear()
        self.finish_retiring(self.stop_grace)
        if self.gate is not None:
            self.gate.close()
        self.transport.close()


class _Game:
    """One game in progress: the rules state, the clocks, the moves and faults so far."""

    def __init__(self, referee: Referee, bots: list[_Bot], config: BoardConfig, game_id: str, seed: int) -> None:
        self.referee = referee
        self.bots = bots
        self.config = config
        self.game_id = game_id
        self.rules = config.rules()
        self.state: State = self.rules.start()
        self.rng = random.Random(seed)  # the referee's own draws (substitute policy)
        self.seed = seed
        self.clocks = [referee.time_control.clock() for _ in bots]
        self.moves: list[MoveRecord] = []
        self.forfeits: list[Forfeit] = []
        self.dead: set[int] = set()  # seats whose bot is gone (substitute policy plays for them)
        self.faulted: set[int] = set()
        self.decided: tuple[str, int] | None = None  # (termination, offender) of a 2-player forfeit
        self.pending: list[tuple[_Bot, str]] = []  # DRAWN announcements not sent yet (see draw)

    def run(self) -> Result:
        referee, config = self.referee, self.config
        time_spec = referee.time_control.spec()
        names = tuple(bot.spec.name for bot in self.bots)
        for seat, bot in enumerate(self.bots):
            if bot.process is not None and referee.log_dir is not None:
                safe_id = self.game_id.replace("/", "_")
                bot.process.open_log(referee.log_dir / f"{safe_id}.seat{seat}.{bot.spec.name}.log")
            elif bot.process is not None:
                bot.process.open_log(None)
            if bot.alive:
                message = config.game_message(self.game_id, seat, names, time_spec, self.seed)
                referee.transport.send(bot, message.to_text())
        for seat, bot in enumerate(self.bots):
            if not bot.alive:
                self.fault(seat, bot.fault or BotFault("no_connection", "not running"))
        while not self.state.is_over() and self.decided is None:
            self.turn(self.state.to_move)
        termination, offender = self.decided or ("completed", None)
        outcome = self.state.outcome()
        self.announce(codec.End(termination, outcome.scores, outcome.placements, offender).to_text())
        for seat in self.faulted:
            referee.retire(self.bots[seat])  # restarted before its next game
        return Result(scores=list(outcome.scores), placements=list(outcome.placements), termination=termination,
                      offender=offender, forfeits=self.forfeits)

    def turn(self, seat: int) -> None:
        bot, clock = self.bots[seat], self.clocks[seat]
        if seat in self.dead:
            self.draw(seat, self.rng.choice(self.state.legal_moves()), 0.0, substituted=True)
            return
        left_ms, limit_ms = clock.request()
        sent = self.referee.request_move(bot, left_ms, limit_ms)
        self.flush()
        try:
            line, received = self.referee.await_move(bot, clock.deadline(sent), limit_ms)
            try:
                step = self.state.apply(line)  # the engine's own check, once: it words the fault too
            except IllegalMove as exc:
                raise BotFault("illegal_line", str(exc)) from None
        except BotFault as fault:
            self.fault(seat, fault)
            return
        clock.spend(received - sent)
        self.draw(seat, line, (received - sent) * 1000, step=step)

    def draw(self, seat: int, line: int, ms: float, substituted: bool = False, step: Step | None = None) -> None:
        step = step or self.state.apply(line)
        self.state = step.state
        # built from values the referee made itself: no validation on the per-move path
        self.moves.append(MoveRecord.model_construct(seat=seat, line=line, closed=list(step.closed), ms=round(ms, 3),
                                                     substituted=substituted))
        text = codec.Drawn(seat, line, step.closed).to_text()
        self.flush()  # earlier announcements first (after substituted moves nothing has flushed them)
        mover = None if self.state.is_over() else self.state.to_move
        for other, bot in enumerate(self.bots):
            if other == mover:
                self.referee.transport.send(bot, text)
            else:  # sent after the next TURN: the mover starts thinking sooner (each bot's order is kept)
                self.pending.append((bot, text))

    def flush(self) -> None:
        """Send the announcements held back by ``draw``."""
        for bot, text in self.pending:
            if bot.alive:
                self.referee.transport.send(bot, text)
        self.pending.clear()

    def announce(self, text: str) -> None:
        self.flush()
        for bot in self.bots:
            if bot.alive:
                self.referee.transport.send(bot, text)

    def fault(self, seat: int, fault: BotFault) -> None:
        """§7: record the fault; then forfeit the seat, or draw a random line for it (substitute policy)."""
        referee, bot = self.referee, self.bots[seat]
        substitute = referee.fault_policy == "substitute"
        self.forfeits.append(Forfeit(seat=seat, reason=fault.reason, detail=fault.detail[:500], move=len(self.moves),
                                     substituted=substitute))
        self.faulted.add(seat)
        gone = fault.reason in ("crashed", "no_connection") or not substitute
        if gone:
            referee.retire(bot, fault)
            self.dead.add(seat)
        else:
            referee._note(bot, f"fault {fault.reason}: {fault.detail}")
        if substitute:
            if seat == self.state.to_move and not self.state.is_over():
                self.draw(seat, self.rng.choice(self.state.legal_moves()), 0.0, substituted=True)
            return
        self.state = self.state.forfeit(seat)
        if self.config.players == 2:
            if self.decided is None:
                self.decided = (fault.reason, seat)
            return
        self.announce(codec.Forfeit(seat, fault.reason).to_text())
