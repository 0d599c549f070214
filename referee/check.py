"""Conformance check of one bot folder: what a bot author runs before submitting (``hexarena check``).

    report = check_bot(Path("bots/cbot"), RefereeSettings(time_control=TimeControl.parse("300ms"), sandboxed=False))
    report = check_bot(Path("bots/cbot"), time_control=TimeControl.parse("300ms"))   # fields of CHECK_SETTINGS
    report.passed                      # True only when every item passed
    for item in report.items:          # CheckItem(name, passed, reason)
        print(item.name, item.passed, item.reason)

The checker is a set of scenarios fed to the one game loop (``referee/game.py``) through
the real ``Referee`` (same build, launch, handshake and fault detection as a match):
positions of its own making as a game's prelude (an extra move after a capture, a
pre-drawn border, misère, 3 and 4 players with a forfeit, squares, a nearly full board),
the other seats played by seeded random movers in this process (``referee/seats/inprocess.py``),
each reply awaited ``GRACE`` past its limit so that lateness fails the time item alone.
A bot that faults in one game is restarted for the next, so each item fails for its own reason only.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from hexarena.protocol.errors import BotFault, ConfigError
from hexarena.referee.build import build
from hexarena.referee.clock import Deadline, TimeControl
from hexarena.referee.seats.inprocess import InProcessSpec
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.manifest import Manifest, load_manifest
from hexarena.referee.record import BoardConfig, GameRecord
from hexarena.referee.referee import Referee
from hexarena.referee.seats.base import SeatState
from hexarena.referee.settings import RefereeSettings

CHECK_TIME = TimeControl(move=1.0, startup=10.0)
CHECK_SETTINGS = RefereeSettings(time_control=CHECK_TIME)  # what the registry's submit checks with (sandboxed)
GRACE = 1.0  # how long past its limit a reply is still awaited, so a slow bot fails "time limit" alone
QUIT_WITHIN = 1.0  # PROTOCOL.md §8
SEED = 20240601

MANIFEST = "manifest and build"
HANDSHAKE = "handshake"
TIME_LIMIT = "time limit"
EXTRA_MOVE = "legal after an extra move"
BORDER = "legal with a pre-drawn border"
MISERE = "legal in misère"
THREE = "legal with 3 players"
FOUR = "legal with 4 players"
SQUARES = "legal on squares"
TRACKS = "tracks the opponents' moves"
SEVERAL = "several games on one connection"
QUITS = "quits on BYE"
ITEMS = (MANIFEST, HANDSHAKE, TIME_LIMIT, EXTRA_MOVE, BORDER, MISERE, THREE, FOUR, SQUARES, TRACKS, SEVERAL, QUITS)


class CheckItem(NamedTuple):
    """One item of the check: its name (``ITEMS``), whether it passed, and why (or what was seen). The one shape
    of an item everywhere: a tuple, so the registry stores it as the JSON list ``[name, passed, reason]`` and
    reads it back as ``CheckItem(*item)``; the server's answer names the reason ``detail``."""

    name: str
    passed: bool
    reason: str = ""


@dataclass
class CheckReport:
    bot: str
    items: list[CheckItem] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return bool(self.items) and all(item.passed for item in self.items)

    def item(self, name: str) -> CheckItem:
        return next(item for item in self.items if item.name == name)

    def to_text(self) -> str:
        """The checklist: one ``PASS``/``FAIL`` line per item with its reason, then the verdict."""
        width = max(len(item.name) for item in self.items)
        lines = [f"{'PASS' if item.passed else 'FAIL'}  {item.name:<{width}}  {item.reason}" for item in self.items]
        failed = sum(not item.passed for item in self.items)
        verdict = "all checks passed" if not failed else f"{failed} of {len(self.items)} checks failed"
        return "\n".join([f"check {self.bot}:"] + lines + [f"{self.bot}: {verdict}"])


@dataclass
class _Scenario:
    """One crafted game: the board, the lines drawn (and seats put out) before the bot's first TURN."""

    item: str
    config: BoardConfig
    prelude: list[int | tuple[str, int]]  # a line, or ("forfeit", seat)
    seat: int | None = None  # None: whoever is to move after the prelude


def check_bot(folder: Path, settings: RefereeSettings = CHECK_SETTINGS, **fields: Any) -> CheckReport:
    """Run every check against the bot in ``folder``, on a referee made with ``settings`` (keyword ``fields``
    replace some of them); never raises for the bot's faults. The build and the bot run sandboxed unless
    ``settings.sandboxed`` is False; ``settings.log_dir`` keeps the bot's output of each crafted game
    (``check<N>.seat<S>.<name>.log``)."""
    if fields:
        settings = replace(settings, **fields)
    folder = Path(folder)
    report = CheckReport(folder.name)
    try:
        manifest = load_manifest(folder)
    except ConfigError as exc:
        report.items.append(CheckItem(MANIFEST, False, str(exc)))
        return _skip_rest(report, "no valid manifest")
    report.bot = manifest.name
    with Referee(settings) as referee:
        _Checker(referee, folder, manifest, report).run()
    return report


def _random_line(game, state) -> int:
    return game.rng.choice(state.legal_moves())


def _skip_rest(report: CheckReport, why: str) -> CheckReport:
    done = {item.name for item in report.items}
    report.items += [CheckItem(name, False, f"not run: {why}") for name in ITEMS if name not in done]
    return report


class _Checker:
    def __init__(self, referee: Referee, folder: Path, manifest: Manifest, report: CheckReport) -> None:
        self.referee = referee
        self.spec = BotSpec(manifest.name, folder.resolve())
        self.manifest = manifest
        self.report = report
        self.control = referee.time_control
        self.rng = random.Random(SEED)
        self.games = 0
        self.slowest: tuple[float, str] | None = None  # (ms over the limit, where)
        self.replies = 0
        self._fresh = False  # whether the last _connect started a new process
        self._current = None
        # the other seats: a seeded random mover each, in this process
        self.movers = [InProcessSpec(f"seat{number}", _random_line) for number in range(4)]

    # ---- the items ----------------------------------------------------------------------------

    def run(self) -> None:
        add = self.report.items.append
        try:
            build(self.spec.folder, self.manifest, sandboxed=self.referee.settings.sandboxed)
        except BotFault as fault:
            add(CheckItem(MANIFEST, False, fault.detail))
            _skip_rest(self.report, "the build failed")
            return
        add(CheckItem(MANIFEST, True, f"{self.manifest.language or 'bot'} via {self.manifest.transport}"
                      + (f", built with {' '.join(self.manifest.build)}" if self.manifest.build else "")))
        try:
            bot = self._connect()
        except BotFault as fault:
            add(CheckItem(HANDSHAKE, False, f"{fault.reason}: {fault.detail}"))
            _skip_rest(self.report, "no handshake")
            return
        add(CheckItem(HANDSHAKE, True, f"HELLO v1 after {1000 * (time.perf_counter() - bot.launched):.0f} ms"))
        results = {scenario.item: self._play(scenario) for scenario in self._scenarios()}
        results[TRACKS] = results[TRACKS] or self._play(self._nearly_full(2))
        several = self._several_games()
        add(self._time_item())
        for name in (EXTRA_MOVE, BORDER, MISERE, THREE, FOUR, SQUARES, TRACKS):
            add(CheckItem(name, results[name] is None, results[name] or self._passed_reason(name)))
        add(CheckItem(SEVERAL, several is None, several or "3 games in a row without a restart"))
        add(self._quit_item())

    def _passed_reason(self, name: str) -> str:
        return "every reply legal (positions after forced announcements)" if name == TRACKS else "every reply legal"

    def _scenarios(self) -> list[_Scenario]:
        hex3 = BoardConfig(size="2x3")
        return [
            _Scenario(EXTRA_MOVE, hex3, self._capture_then_move(hex3)),
            _Scenario(BORDER, BoardConfig(size="2x3", border=True), [], seat=0),
            _Scenario(MISERE, BoardConfig(size="2x3", misere=True), self._random_lines(hex3, 4)),
            _Scenario(THREE, BoardConfig(size="2x3", players=3), self._random_lines(hex3, 5)),
            _Scenario(FOUR, BoardConfig(size="2x3", players=4), self._random_lines(hex3, 3) + [("forfeit", 1)]),
            _Scenario(SQUARES, BoardConfig(size="3x3", geometry="square"), self._random_lines(
                BoardConfig(size="3x3", geometry="square"), 3)),
            self._nearly_full(1),
        ]

    def _random_lines(self, config: BoardConfig, count: int) -> list[int]:
        return self.rng.sample(range(len(config.board().lines)), count)

    def _capture_then_move(self, config: BoardConfig) -> list[int]:
        """Draw a cell's sides so that the one who closes it must move again at once."""
        rules = config.rules()
        cell = self.rng.randrange(len(rules.board.cells))
        sides = list(rules.board.cells[cell])
        self.rng.shuffle(sides)
        state = rules.replay(sides)
        extra = self.rng.choice(state.legal_moves())
        return sides + [extra]

    def _nearly_full(self, free: int) -> _Scenario:
        """Every line but ``free`` drawn before the bot's first TURN: a bot that ignores DRAWN picks a drawn line."""
        config = BoardConfig(size="3x3")
        lines = list(range(len(config.board().lines)))
        middle = lines[len(lines) // 4: 3 * len(lines) // 4]  # a stale "lowest free line" bot picks line 0
        keep = set(self.rng.sample(middle, free))
        drawn = [line for line in lines if line not in keep]
        self.rng.shuffle(drawn)
        return _Scenario(TRACKS, config, drawn)

    def _late(self, over_ms: float, item: str) -> None:
        if self.slowest is None or over_ms > self.slowest[0]:
            self.slowest = (over_ms, f"'{item}', game {self.games}")

    def _time_item(self) -> CheckItem:
        limit = self._limit_text()
        if self.slowest is not None:
            over, where = self.slowest
            late = f"no reply within {GRACE:g} s" if over == float("inf") else f"a reply came {over:.0f} ms"
            return CheckItem(TIME_LIMIT, False, f"{late} past the limit of {limit} ({where})")
        if self.replies == 0:  # a bot that never answered has shown nothing about its timing
            return CheckItem(TIME_LIMIT, False, f"no reply to judge against the limit of {limit}")
        return CheckItem(TIME_LIMIT, True, f"{self.replies} replies, each within {limit}")

    def _limit_text(self) -> str:
        control = self.control
        margin = f" + {control.margin * 1000:.0f} ms margin"
        return (f"{control.move * 1000:.0f} ms" if control.move is not None else f"the bank of {control}") + margin

    def _several_games(self) -> str | None:
        """Three plain games back to back on one connection; a restart in between is a failure."""
        bot = None
        for number in range(1, 4):
            if bot is not None and bot.state is SeatState.CLOSED:
                return f"the bot was gone after game {number - 1}: {bot.fault.detail if bot.fault else 'closed'}"
            failure = self._play(_Scenario(SEVERAL, BoardConfig(size="2x2"), [], seat=number % 2), reuse=bot)
            if failure is not None:
                return f"game {number}: {failure}"
            bot = self._current
        return None

    def _quit_item(self) -> CheckItem:
        try:
            bot = self._connect()
        except BotFault as fault:
            return CheckItem(QUITS, False, f"could not restart the bot to say BYE: {fault.detail}")
        referee, process = self.referee, bot.process
        bot.retire(reason="check over")  # BYE; the referee's finish_retiring stops the process
        deadline = Deadline.after(QUIT_WITHIN)
        while not process.exited() and not deadline.passed():
            time.sleep(0.005)
        code = process.returncode
        why = process.describe_exit() if code is not None else ""
        referee.finish_retiring(grace=0)
        if code is None:
            return CheckItem(QUITS, False, f"still running {QUIT_WITHIN:g} s after BYE (§8)")
        if code != 0:
            return CheckItem(QUITS, False, f"{why} after BYE")
        return CheckItem(QUITS, True, "exited with status 0 after BYE")

    # ---- playing one crafted game --------------------------------------------------------------

    def _connect(self, reuse=None):
        """The running bot (started, and HELLO awaited, if need be); BotFault if it does not come up."""
        referee = self.referee
        seat = referee.seat_bots([self.spec])[0]
        if reuse is not None and seat is not reuse:
            raise BotFault("crashed", "restarted")
        self._fresh = seat.state is SeatState.NEW
        referee.start([seat])
        if seat.state is not SeatState.READY:
            referee.finish_retiring()
            raise seat.fault or BotFault("no_connection", "did not start")
        return seat

    def _play(self, scenario: _Scenario, reuse=None) -> str | None:
        """Play one game; a bot that was found gone at its first TURN gets a fresh process once."""
        failure = self._play_once(scenario, reuse)
        if failure and failure.startswith("crashed") and reuse is None and not self._fresh:
            failure = self._play_once(scenario, None)
        return failure

    def _play_once(self, scenario: _Scenario, reuse) -> str | None:
        """Play one game to the end in the game loop; the bot's failure reason, or None when every reply was legal."""
        try:
            self._current = self._connect(reuse)
        except BotFault as fault:
            return f"could not (re)start the bot: {fault.reason}: {fault.detail}"
        self.games += 1
        config = scenario.config
        state = config.rules().start()
        for step in scenario.prelude:
            state = state.forfeit(step[1]) if isinstance(step, tuple) else state.apply(step).state
        seat = state.to_move if scenario.seat is None else scenario.seat
        specs = self.movers[:config.players]
        specs[seat] = self.spec
        record = self.referee.play(specs, config, game_id=f"check{self.games}", seed=SEED + self.games,
                                   prelude=scenario.prelude, grace=GRACE)
        self._judge_time(record, seat, scenario.item)
        fault = next((f for f in record.result.forfeits if f.seat == seat), None)
        if fault is None:
            return None
        stale = " — the bot's view of the board is stale" if (
            scenario.item == TRACKS and fault.reason == "illegal_line" and "already drawn" in fault.detail) else ""
        return f"{fault.reason}: {fault.detail}{stale}"

    def _judge_time(self, record: GameRecord, seat: int, item: str) -> None:
        """Note each reply that came past its limit (the game waited ``GRACE`` longer), by the clock's own rule."""
        clock = self.control.clock()
        for move in record.moves:
            if move.seat != seat or move.substituted:
                continue
            clock.request()
            self.replies += 1
            over_ms = move.ms - 1000 * clock.allowance()
            if over_ms > 0:
                self._late(over_ms, item)
            clock.spend(move.ms / 1000)
        if any(f.seat == seat and f.reason == "timeout" for f in record.result.forfeits):
            self._late(float("inf"), item)
