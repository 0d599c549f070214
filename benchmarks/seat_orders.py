"""The seat-order effect at a 3-player table: wins by listing order, seat rotations only (before issue 17) and every order.

    python3 benchmarks/seat_orders.py [--games 12] [--size 3x3] [--time 200ms] A B C

Two listings of the same three bots, (A, B, C) and (B, A, C), each play ``--games`` games, seated
either by rotation (game i rotated by i: who plays after whom never changes) or in every seat order
(``hexarena.leagues.schedule.seating``). Fair seating gives both listings the same games, so the wins should agree.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from hexarena.leagues.schedule.seating import seat_orders, seated
from hexarena.leagues.results.wording import result_for
from hexarena.referee.clock import TimeControl
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee

ROOT = Path(__file__).resolve().parent.parent


def wins(referee: Referee, listing: list[BotSpec], config: BoardConfig, games: int, every_order: bool) -> Counter:
    orders = seat_orders(3) if every_order else seat_orders(3)[:3]  # the first three are the rotations
    count: Counter = Counter()
    for number in range(games):
        seats = seated(listing, orders[number % len(orders)])
        record = referee.play(seats, config, game_id=f"g{number}", seed=number // len(orders))
        count.update(name for seat, name in enumerate(record.seats) if result_for(record, seat) == "win")
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bots", nargs=3)
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--size", default="3x3")
    parser.add_argument("--time", default="200ms")
    args = parser.parse_args()
    a, b, c = (BotSpec(name, ROOT / "bots" / name) for name in args.bots)
    config = BoardConfig(size=args.size, players=3)
    with Referee(time_control=TimeControl.parse(args.time)) as referee:
        for every_order in (False, True):
            label = "every order (after)" if every_order else "rotations (before)"
            for listing in ([a, b, c], [b, a, c]):
                count = wins(referee, listing, config, args.games, every_order)
                names = " ".join(spec.name for spec in listing)
                print(f"{label:20} listing {names:24} wins: " + ", ".join(f"{s.name} {count[s.name]}" for s in listing))


if __name__ == "__main__":
    main()
