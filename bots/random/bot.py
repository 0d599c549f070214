"""random: a uniformly random free line, reproducible from the game's seed."""

from hexarena.protocol.client import run_bot


def choose(game, state) -> int:
    return game.rng.choice(state.legal_moves())


if __name__ == "__main__":
    run_bot(choose)
