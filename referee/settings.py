"""How a referee is made: one frozen value, built once by whoever starts games and handed down as it is.

    settings = RefereeSettings(time_control=TimeControl.parse("300ms"), sandboxed=False, log_dir=Path("logs"))
    with Referee(settings) as referee: ...                  # a match, the conformance check
    pool = referee_pool(settings, 2)                        # sprt, a league (worker processes get it pickled)
    DaskExecutor(address, settings)                         # a league on a cluster (its workers get it pickled)

The CLI builds it from its options (``hexarena match``, ``sprt``, ``check``), the league runner from a
league file (``hexarena.leagues.running.runner.league_settings``), the server for its leagues. Everything
in it is plain data: it pickles, compares and hashes (a Dask worker keeps one warm referee per distinct
value). What only wires a referee into its own process (a transport hook, a fixed endpoint, the callback
that announces a remote seat's credentials) is not a setting: ``Referee``'s own keyword arguments.

``sandboxed`` is the organiser's choice (``--no-sandbox``, a league file's ``sandbox = false``): it travels
from here to every bot process, build and check the referee starts (``referee/sandbox.py``); there is no
process-wide switch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hexarena.referee.clock import TimeControl
from hexarena.referee.limits import Limits


@dataclass(frozen=True)
class RefereeSettings:
    """What a referee is made with (``Referee(settings)``); frozen, picklable, hashable."""

    time_control: TimeControl = field(default_factory=TimeControl)  # 1 s per move, 10 s to start
    fault_policy: str = "forfeit"  # or "substitute" (``referee/game.py``; checked when a referee is made)
    limits: Limits = field(default_factory=Limits)  # the organiser's cap on every bot (a manifest may lower it)
    sandboxed: bool = True  # False: bots, builds and checks run unconfined (the organiser's --no-sandbox)
    log_dir: Path | None = None  # the bots' per-game output logs (None: kept nowhere)
    stop_grace: float = 1.0  # seconds bots get to exit after BYE when the referee closes
    listen: str = "tcp://127.0.0.1:0"  # where remote seats connect (CURVE), a match's --listen
    remote_retry: bool = False  # wait again before every game for a remote bot that never joined
    replay_host_stalls: bool = False  # a game a host stall ended is played again (``Referee.play``), not scored

    def __post_init__(self) -> None:
        if self.log_dir is not None and not isinstance(self.log_dir, Path):
            object.__setattr__(self, "log_dir", Path(self.log_dir))  # a str from a caller: compared and hashed as a Path
