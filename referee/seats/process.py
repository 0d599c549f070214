"""Seats for bots the referee starts itself: a process from a bot folder, over ZeroMQ or the stdio bridge.

    BotSpec("greedy", Path("bots/greedy"))          # a folder with bot.toml
    BotSpec("alice", None, remote=True)             # a remote seat (referee/seats/remote.py)

The manifest is read when the seat is made, right before its launch, so a broken one
loses that bot its game (``no_connection``) instead of raising out of ``Referee.play``.
The build (``referee/build.py``) runs once per folder and process; the process runs in
its own session (``referee/launch.py``); a stdio bot's lines are relayed by ``referee/bridge.py``. Both
run in the sandbox, with the limits, that the referee's ``RefereeSettings`` say (``Referee(settings)``).
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from pathlib import Path

from hexarena.protocol import codec
from hexarena.protocol.errors import BotFault, ConfigError
from hexarena.referee.build import build
from hexarena.referee.hub import Hub
from hexarena.referee.launch import BotProcess
from hexarena.referee.manifest import Manifest, load_manifest
from hexarena.referee.seats.base import Seat, SeatState
from hexarena.referee.seats.zmq import ZmqSeat
from hexarena.referee.settings import RefereeSettings


@dataclass(frozen=True)
class BotSpec:
    """What to run for a seat: a bot folder, or (``remote``) a bot that joins over tcp with CURVE."""

    name: str  # shown in records (e.g. "greedy" or "greedy@3fa2c1")
    folder: Path | None  # the bot's folder (contains bot.toml); None for a remote seat
    remote: bool = False
    startup: float | None = None  # this seat's own startup allowance (a remote bot started by hand), in seconds
    version: str = ""  # the exact version the record names, e.g. "greedy@3fa2c1d4e5" ("" for a remote seat)

    def make(self, hub: Hub, label: str, settings: RefereeSettings) -> Seat:
        if self.remote:
            from hexarena.referee.seats.remote import RemoteSeat

            return RemoteSeat(self.name, label, hub, self.startup)
        try:
            manifest, broken = load_manifest(self.folder), None
        except ConfigError as exc:
            manifest, broken = None, BotFault("no_connection", str(exc))
        return ProcessSeat(self.name, label, hub, self.folder, manifest, settings, broken)


class ProcessSeat(ZmqSeat):
    """A bot process of ours; its output goes to the current game's log, and it is stopped after BYE."""

    def __init__(self, name: str, label: str, hub: Hub, folder: Path, manifest: Manifest | None,
                 settings: RefereeSettings, broken: BotFault | None = None) -> None:
        super().__init__(name, label, hub)
        self.folder = folder
        self.manifest = manifest
        self.limits = settings.limits
        self.sandboxed = settings.sandboxed  # its build and its process: in the sandbox unless the organiser said not
        self._broken = broken
        self.process: BotProcess | None = None
        self._exit_seen = False  # the poller saw the process exit
        self._endpoint: str | None = None  # this bot's own socket (``Transport.seat_endpoint``)

    def start_bot(self, env: dict[str, str]) -> None:
        if self._broken is not None:
            raise self._broken
        build(self.folder, self.manifest, sandboxed=self.sandboxed)
        try:
            self._endpoint = env["HEXARENA_ENDPOINT"] = self.hub.transport.seat_endpoint()
            self.process = BotProcess.start(self.folder, self.manifest, env, self.limits, sandboxed=self.sandboxed)
        except OSError as exc:
            self.closed()  # no process to stop: its socket is released now (nothing else would)
            raise BotFault("no_connection", f"cannot start {self.manifest.command}: {exc}") from None
        self.hub.watch(self, self.process.fds)

    def poll_start(self) -> None:
        if self.process is not None and self.process.exited():
            self.retire(BotFault("crashed", "before saying HELLO: " + self.process.describe_exit()
                                 + self.startup_report()))

    def startup_report(self) -> str:
        """What a bot author needs when a bot never said HELLO: the command run, and its stderr's last lines."""
        if self.manifest is None:
            return ""
        report = f" [ran {' '.join(self.manifest.command)} in {self.folder}"
        lines = []
        if self.process is not None:
            self.process.drain()
            lines = [line[:200] for line in self.process.stderr_tail.decode(errors="replace").splitlines()
                     if line.strip()][-3:]
        silent = self.process is not None and self.process.bridge is not None and not self.process.bridge.read_any
        hint = "; nothing was read from its stdout: does it flush after each line?" if silent else ""
        return report + ("; stderr: " + " | ".join(lines) if lines else "; no stderr") + hint + "]"

    def ready_fd(self, fd: int) -> None:
        if self.process is None:  # a descriptor drained to EOF outside the poller, closed since, its number reused
            self.hub.unwatch(fd)
            return
        if fd == self.process.exit_fd:
            self._exit_seen = True
            self.hub.unwatch(fd)
        elif not self.process.read(fd):
            self.hub.unwatch(fd)

    def gone(self) -> str | None:
        # the poller watches the exit descriptor, so no system call per check where there is one
        if self._exit_seen or (self.process.exit_fd is None and self.process.exited()):
            return self.process.describe_exit()
        return None

    def cpu_ms(self) -> float | None:
        return None if self.process is None else self.process.cpu_ms()

    def begin_game(self, log_path: Path | None) -> None:
        if self.process is not None:  # before its GAME leaves: from then on the bot's output is this game's
            self.process.switch_log(log_path)

    def send(self, message: codec.Message) -> None:
        super().send(message)
        if isinstance(message, codec.End) and self.process is not None:
            self.process.ended()

    def note(self, text: str) -> None:
        if self.process is not None:
            self.process.note(text)

    def note_fault(self, fault: BotFault) -> None:
        if self.process is None:
            return
        self.process.drain()
        super().note_fault(fault)
        tail = self.process.stderr_tail.decode(errors="replace")
        if tail:
            self.process.note("stderr tail:\n" + tail)

    def retire(self, fault: BotFault | None = None, reason: str = "") -> None:
        was_closed = self.state is SeatState.CLOSED
        super().retire(fault, reason)
        if was_closed or self.process is None:
            return
        for fd in self.process.fds:
            self.hub.unwatch(fd)
        if fault is not None:
            self.process.signal_group(signal.SIGTERM)  # a faulted bot gets no grace

    def closed(self) -> None:
        self.process = None
        if self._endpoint is not None:
            self.hub.transport.release_endpoint(self._endpoint)
            self._endpoint = None
