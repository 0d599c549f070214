"""Exact reruns: a stored game played again with the same bot versions, seats, seed, start position and time control.

    plan = rerun_plan(ws, record, replace={"greedy": "path/to/greedy"})   # what to run; ConfigError naming the missing
    again = rerun(plan)                                                    # the new record
    difference = first_difference(record, again)                           # None: identical

Each seat runs the registry's snapshot of the version the record names (``versions``: ``name@hash``); ``replace``
puts another version (a folder, ``name@hash``) in the seats of one bot, to see whether a change plays the game
differently. The fault policy is read back from the record (a substituted move: ``substitute``).
"""

from __future__ import annotations

from dataclasses import dataclass

from hexarena.leagues.registry.resolve import ResolvedBot, resolve
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError
from hexarena.referee.record import GameRecord, MoveRecord
from hexarena.referee.referee import Referee
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.settings import RefereeSettings


@dataclass(frozen=True)
class RerunPlan:
    record: GameRecord
    bots: tuple[ResolvedBot, ...]  # one per seat
    fault_policy: str


def bare_name(seat: str) -> str:
    return seat.partition("@")[0]


def rerun_plan(ws: Workspace, record: GameRecord, replace: dict[str, str] | None = None) -> RerunPlan:
    """The bots of each seat, resolved; ConfigError for a record without versions, a ``replace`` naming no seat's
    bot, or versions the registry no longer has (all of them named)."""
    replace = dict(replace or {})
    names = [bare_name(seat) for seat in record.seats]
    unknown = [name for name in replace if name not in names]
    if unknown:
        raise ConfigError(f"--bot {unknown[0]}=…: no seat of game {record.id} plays {unknown[0]!r} "
                          f"(its seats: {', '.join(names)})")
    if len(record.versions) != len(record.seats) and set(names) - set(replace):
        raise ConfigError(f"game {record.id} was recorded before versions were kept: its bots' versions are unknown, "
                          "so it cannot be rerun exactly (replace every seat's bot with --bot NAME=FOLDER)")
    bots, missing = [], []
    for seat, name in enumerate(names):
        if name in replace:  # the user's argument: resolve's own words say what is wrong with it
            try:
                bots.append(resolve(ws, replace[name]))
            except ConfigError as exc:
                raise ConfigError(f"--bot {name}={replace[name]}: {exc}") from None
            continue
        try:
            bots.append(resolve(ws, record.versions[seat]))
        except ConfigError:
            missing.append(f"{record.versions[seat]} (seat {seat})")
    if missing:
        raise ConfigError(f"game {record.id}: not in the registry any more: {', '.join(missing)}")
    substitute = any(f.substituted for f in record.result.forfeits) or any(m.substituted for m in record.moves)
    return RerunPlan(record, tuple(bots), "substitute" if substitute else "forfeit")


def rerun(plan: RerunPlan, sandboxed: bool = True) -> GameRecord:
    """Play the planned game once (its own referee, no logs kept)."""
    record = plan.record
    settings = RefereeSettings(time_control=record.time_control or RefereeSettings().time_control,
                               fault_policy=plan.fault_policy, sandboxed=sandboxed)
    specs = [BotSpec(seat, bot.folder, version=bot.version) for seat, bot in zip(record.seats, plan.bots)]
    with Referee(settings) as referee:
        return referee.play(specs, record.config, game_id=record.id, seed=record.seed, prelude=record.opening)


@dataclass(frozen=True)
class Difference:
    """The first move where two plays of a game part: its index, and the move of each (None: that play had ended)."""

    index: int
    stored: MoveRecord | None
    again: MoveRecord | None


def first_difference(stored: GameRecord, again: GameRecord) -> Difference | None:
    """The first move (seat or line) that differs, or where one play ended and the other did not; None if every
    move and the result are the same."""
    for index in range(max(len(stored.moves), len(again.moves))):
        a = stored.moves[index] if index < len(stored.moves) else None
        b = again.moves[index] if index < len(again.moves) else None
        if a is None or b is None or (a.seat, a.line) != (b.seat, b.line):
            return Difference(index, a, b)
    same = (stored.result.scores, stored.result.placements, stored.result.termination, stored.result.offender)
    if same != (again.result.scores, again.result.placements, again.result.termination, again.result.offender):
        return Difference(len(stored.moves), None, None)
    return None
