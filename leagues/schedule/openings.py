"""Start positions ("openings"): a few lines drawn before the first TURN, so deterministic bots play new games.

A start position is a tuple of lines, drawn in order by the seats as they come to move (no line
closes a cell, so the turn passes each time); the referee announces them as DRAWN before the
first TURN (``Referee.play(..., prelude=lines)``) and the record keeps them (``GameRecord.opening``).

    random_openings(config, 8, seed)    8 distinct random positions, the same for the same seed
    read_openings(path, config)         a file: one comma-separated line list per row (# comments, blank rows skipped)
    check_opening(rules, lines)         the state after them, or ConfigError: illegal line, or a line that captures

A random position draws only *safe* lines: none closes a cell or gives a cell its last-but-one side
(so the first bot to move cannot capture either). Its length is 1 to ``few(free lines)``.
"""

from __future__ import annotations

import random
from pathlib import Path

from hexarena.protocol.errors import ConfigError
from hexarena.protocol.rules import Rules, State
from hexarena.referee.record import BoardConfig


MAX_RANDOM = 10_000  # random start positions a board, a match or an sprt run may ask for


def start_positions(spec: str, config: BoardConfig, count: int, seed: object) -> list[tuple[int, ...]]:
    """A command line's ``--openings``: ``random`` (``count`` fresh ones, one per pair), N (N random ones, in
    turn; 0: the empty board) or a file (one comma-separated line list per row); ConfigError otherwise."""
    if spec == "random":
        if count <= 0:
            raise ConfigError("--openings random needs a number of pairs (sprt); give N random positions or a file")
        return random_openings(config, count, seed)
    if spec.isdigit():
        if int(spec) > MAX_RANDOM:
            raise ConfigError(f"--openings {spec}: at most {MAX_RANDOM} random start positions")
        return random_openings(config, int(spec), seed) if int(spec) else [()]
    return read_openings(spec, config)


def few(free: int) -> int:
    """The most lines a random start position draws on a board with ``free`` free lines: 1 to 4."""
    return min(4, max(1, free // 6))


def safe_lines(state: State) -> list[int]:
    """The free lines after which every cell they touch still lacks at least two sides."""
    rules = state.rules
    safe = []
    for line in state.legal_moves():
        drawn = state.drawn | 1 << line
        if all((mask & ~drawn).bit_count() >= 2 for _, mask in rules.touches[line]):
            safe.append(line)
    return safe


def random_opening(rules: Rules, rng: random.Random) -> tuple[int, ...]:
    """One random start position of safe lines (fewer if the board runs out of them)."""
    state = rules.start()
    lines: list[int] = []
    for _ in range(rng.randint(1, few(state.free_count()))):
        choices = safe_lines(state)
        if not choices:
            break
        lines.append(rng.choice(choices))
        state = state.apply(lines[-1]).state
    return tuple(lines)


def random_openings(config: BoardConfig, count: int, seed: object) -> list[tuple[int, ...]]:
    """``count`` random start positions, distinct while the board has enough, reproducible from ``seed``."""
    rng = random.Random(f"openings:{seed}:{config.size}:{config.geometry}:{config.border}")
    rules = config.rules()
    openings: list[tuple[int, ...]] = []
    seen: set[frozenset[int]] = set()
    for _ in range(100 * count):
        if len(openings) == count:
            break
        opening = random_opening(rules, rng)
        if frozenset(opening) not in seen:
            seen.add(frozenset(opening))
            openings.append(opening)
    while len(openings) < count:  # a tiny board: repeat what there is
        openings.append(openings[len(openings) % max(len(seen), 1)] if openings else ())
    return openings


def check_opening(rules: Rules, lines: tuple[int, ...] | list[int]) -> State:
    """The state after ``lines``; ConfigError naming the first illegal or capturing line."""
    state = rules.start()
    for line in lines:
        if not state.is_legal(line):
            drawn = "is already drawn" if 0 <= line < rules.lines else f"is out of range (0-{rules.lines - 1})"
            raise ConfigError(f"line {line} {drawn}")
        step = state.apply(line)
        if step.closed:
            raise ConfigError(f"line {line} captures (a start position may not close a cell)")
        state = step.state
    return state


def parse_openings(text: str, config: BoardConfig, source: str) -> list[tuple[int, ...]]:
    """The rows of an openings file, each checked on ``config``'s board; one-line ConfigError naming the row."""
    rules = config.rules()
    openings = []
    for number, row in enumerate(text.splitlines(), start=1):
        row = row.split("#", 1)[0].strip()
        if not row:
            continue
        try:
            lines = tuple(int(part) for part in row.replace(" ", "").split(",") if part)
        except ValueError:
            raise ConfigError(f"{source}: row {number}: {row!r} is not a comma-separated list of line numbers") from None
        try:
            check_opening(rules, lines)
        except ConfigError as exc:
            raise ConfigError(f"{source}: row {number}: {exc} on {config.label}") from None
        openings.append(lines)
    if not openings:
        raise ConfigError(f"{source}: no start positions in the file")
    return openings


def read_openings(path: str | Path, config: BoardConfig) -> list[tuple[int, ...]]:
    """``parse_openings`` of a file; a missing or unreadable file is a one-line ConfigError."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the openings file: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_openings(text, config, str(path))


def format_openings(openings: list[tuple[int, ...]]) -> str:
    """The file form: one comma-separated row per start position."""
    return "".join(",".join(map(str, opening)) + "\n" for opening in openings)
