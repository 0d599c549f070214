"""The referee: plays games between seats over protocol v1, keeping bots running between games.

    with Referee(RefereeSettings(log_dir=Path("logs"), time_control=TimeControl.parse("300ms"))) as referee:
        record = referee.play([BotSpec("greedy", Path("bots/greedy")), BotSpec("random", Path("bots/random"))],
                              BoardConfig(size="3x3"), game_id="g1", seed=7)
    Referee(time_control=TimeControl.parse("300ms"))   # the same: keyword fields of a RefereeSettings

How a referee is made is one value, ``RefereeSettings`` (``referee/settings.py``: time control, fault
policy, limits, sandboxed or not, logs folder...); the keyword arguments ``endpoint``, ``hook`` and
``announce`` only wire it into this process.

A referee belongs to one thread. It owns a ``Hub`` (the ROUTER socket and the one poller,
``referee/hub.py``) and one warm seat per seat spec (``referee/seats/base.py``): seats are
launched on first use, kept across games, and made afresh after a fault. Each game is
played by the one game loop (``referee/game.py``). Faults are results
(``GameRecord.result``), never exceptions: the referee raises only ``ConfigError`` (a seat
count that does not fit the board, an unknown fault policy) and for its own bugs.
``seat_bots``, ``start`` and ``finish_retiring`` are public for the conformance
check (``referee/check.py``), which drives a bot's start and stop itself.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Self

from hexarena.protocol.errors import BotFault, ConfigError
from hexarena.referee.clock import Deadline, TimeControl
from hexarena.referee.game import FAULT_POLICIES, Game, GameObserver, Prelude
from hexarena.referee.hub import Hub
from hexarena.referee.launch import stop_all
from hexarena.referee.record import BoardConfig, GameRecord
from hexarena.referee.seats.base import Seat, SeatSpec, SeatState
from hexarena.referee.settings import RefereeSettings
from hexarena.referee.transport import Hook

DEFAULT_TIME = TimeControl()  # 1 s per move, 10 s to start
DEFAULT_SETTINGS = RefereeSettings()
HOST_STALL_REPLAYS = 2  # then the game is scored as it ended: a host that stalls every time is the organiser's to fix
log = logging.getLogger("hexarena.referee")


class Referee:
    """Plays games; keeps bots running between them. One Referee belongs to one thread."""

    def __init__(
        self,
        settings: RefereeSettings = DEFAULT_SETTINGS,
        *,
        endpoint: str | None = None,
        hook: Hook | None = None,
        announce: Callable | None = None,
        **fields: Any,
    ) -> None:
        """``Referee(settings)``; keyword ``fields`` (``time_control=...``) replace those of ``settings``.
        ConfigError for an unknown fault policy."""
        if fields:
            settings = replace(settings, **fields)
        if settings.fault_policy not in FAULT_POLICIES:
            raise ConfigError(f"fault policy {settings.fault_policy!r} is not one of: {', '.join(FAULT_POLICIES)}")
        self.settings = settings
        self.log_dir = settings.log_dir
        self.time_control = settings.time_control
        self.fault_policy = settings.fault_policy
        self.stop_grace = settings.stop_grace
        self.hub = Hub(endpoint, hook, listen=settings.listen, announce=announce)
        # a remote bot that did not join is not waited for (with new keys) before every later game, unless asked
        self.remote_retry = settings.remote_retry
        self._seats: dict[tuple[SeatSpec, int], Seat] = {}

    @property
    def endpoint(self) -> str:
        return self.hub.endpoint

    @property
    def transport(self):
        return self.hub.transport

    @property
    def seats(self) -> list[Seat]:
        """The seats kept from earlier games (running, or closed and to be made afresh)."""
        return list(self._seats.values())

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def play(self, specs: list[SeatSpec], config: BoardConfig, *, game_id: str, seed: int | None = None,
             prelude: Prelude = (), grace: float = 0.0, observer: GameObserver | None = None) -> GameRecord:
        """Play one game (``referee/game.py``); seats are started on first use, restarted after a fault.
        ``observer`` hears of the game's start, moves and end (``GameObserver``). With ``replay_host_stalls``, a
        game a host stall ended (``referee/stalls.py``) is played again, from the same seed, at most
        ``HOST_STALL_REPLAYS`` times; the record says how often (``host_stall_replays``). Each replay is a game of
        its own to the observer (``<game_id>.replay<n>``, started and ended once), and the logs of the attempt it
        replaces become ``<game_id>.stalled<n>.seat…``: the game's own log names are the scored attempt's."""
        if len(specs) != config.players:
            raise ConfigError(f"{len(specs)} bots for a {config.players}-player game")
        if seed is None:
            seed = secrets.randbelow(2**31)
        replays = 0
        while True:
            seats = self.seat_bots(specs)
            self.start(seats)
            game = Game(seats, config, game_id=game_id, seed=seed, time_control=self.time_control,
                        fault_policy=self.fault_policy, log_dir=self.log_dir, prelude=prelude, grace=grace,
                        observer=observer, versions=[spec.version for spec in specs], replay=replays)
            try:
                record = game.run()
            finally:
                self.finish_retiring()
            stalled = [f for f in record.result.forfeits if f.host_stall is not None]
            if not (stalled and self.settings.replay_host_stalls) or replays == HOST_STALL_REPLAYS:
                return record if not replays else record.model_copy(update={"host_stall_replays": replays})
            replays += 1
            for path in game.logs:  # the scored attempt's logs keep the game's names; this one's are set apart
                if path.exists():
                    path.rename(path.with_name(path.name.replace(".seat", f".stalled{replays}.seat", 1)))
            log.warning("game %s: %s timed out while the host stalled (%s); played again (%d of at most %d)",
                        game_id, record.seats[stalled[0].seat], stalled[0].host_stall, replays, HOST_STALL_REPLAYS)

    def seat_bots(self, specs: list[SeatSpec]) -> list[Seat]:
        """The seat for each spec: the one kept running from earlier games, else a new one (not launched)."""
        seats: list[Seat] = []
        for spec in specs:
            copy = sum(1 for other in specs[:len(seats)] if other == spec)
            seat = self._seats.get((spec, copy))
            if seat is not None and seat.state is SeatState.READY and seat.gone():
                seat.retire()  # it died between games: start it again rather than forfeit
            if seat is None or seat.state is SeatState.CLOSED:
                never_joined = seat is not None and spec.remote and seat.fault and seat.fault.reason == "no_connection"
                self.finish_retiring()
                seat = spec.make(self.hub, spec.name if copy == 0 else f"{spec.name}#{copy + 1}", self.settings)
                self._seats[(spec, copy)] = seat
                if never_joined and not self.remote_retry:
                    seat.retire(BotFault("no_connection", "did not join in an earlier game: not waited for again "
                                                          "(--remote-retry waits before every game)"))
            seats.append(seat)
        return seats

    def start(self, seats: list[Seat]) -> None:
        """Launch the seats not launched yet and wait (startup allowance) until each has said HELLO."""
        waiting = []
        for seat in seats:
            if seat.state is SeatState.NEW:
                seat.launch()
                if seat.state is SeatState.STARTING:
                    waiting.append(seat)
        allowance = {seat: self.time_control.startup if seat.startup is None else seat.startup for seat in waiting}
        began = time.perf_counter()
        while True:
            for seat in waiting:
                if seat.state is SeatState.STARTING:
                    seat.poll_start()
                if seat.state is SeatState.STARTING and time.perf_counter() >= began + allowance[seat]:
                    seat.retire(BotFault("no_connection", f"no HELLO within the startup allowance of "
                                                          f"{allowance[seat]:g} s" + seat.startup_report()))
            starting = [seat for seat in waiting if seat.state is SeatState.STARTING]
            if not starting:
                break
            self.hub.poll(Deadline(began + min(allowance[seat] for seat in starting)).remaining_ms())

    def finish_retiring(self, grace: float = 0.2) -> None:
        """Stop the processes of the seats told BYE: wait for them to exit, then SIGTERM and SIGKILL their groups."""
        retired = [seat for seat in self._seats.values() if seat.state is SeatState.CLOSED and seat.process]
        if not retired:
            return
        stop_all([seat.process for seat in retired], grace=grace, term_grace=grace)
        for seat in retired:
            seat.closed()

    def close(self) -> None:
        """Say goodbye to every bot and stop every process group; then close the socket."""
        for seat in self._seats.values():
            seat.retire(reason="match over")
        self.finish_retiring(self.stop_grace)
        self._seats.clear()
        self.hub.close()
