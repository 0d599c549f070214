"""greedy: take a cell when possible, else a line that gives no cell away, else any line (seeded)."""

from hexarena.protocol.client import run_bot


def choose(game, state) -> int:
    rules, drawn = game.rules, state.drawn
    free = state.legal_moves()
    safe = []
    for line in free:
        after = drawn | 1 << line
        filled = [((after & mask).bit_count(), mask.bit_count()) for _, mask in rules.touches[line]]
        if any(count == sides for count, sides in filled):
            return line  # closes a cell
        if all(count < sides - 1 for count, sides in filled):
            safe.append(line)  # leaves every neighbouring cell at least two sides short
    return game.rng.choice(safe or free)


if __name__ == "__main__":
    run_bot(choose)
