"""Line facts: what drawing one free line does to the cells around it (the chain rules' vocabulary)."""

from __future__ import annotations

from hexarena.protocol.rules import Rules


def effect(rules: Rules, drawn: int, line: int) -> tuple[int, int]:
    """(cells the line closes, cells it leaves one side short) for a free ``line``."""
    after = drawn | 1 << line
    closed = short = 0
    for _, mask in rules.touches[line]:
        left = mask & ~after
        if not left:
            closed += 1
        elif not left & (left - 1):
            short += 1
    return closed, short


def capturable_lines(rules: Rules, drawn: int) -> list[int]:
    """The last free line of every cell with one side left, sorted, without repeats."""
    lines = set()
    for mask in rules.cell_masks:
        left = mask & ~drawn
        if left and not left & (left - 1):
            lines.add(left.bit_length() - 1)
    return sorted(lines)


def handout(rules: Rules, drawn: int) -> int:
    """Cells the player to move can take in a row by capturing greedily from ``drawn``."""
    taken = 0
    while True:
        lines = capturable_lines(rules, drawn)
        if not lines:
            return taken
        taken += effect(rules, drawn, lines[0])[0]
        drawn |= 1 << lines[0]
