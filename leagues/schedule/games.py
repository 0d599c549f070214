"""The game list of a league: deterministic, with stable ids, interleaved round by round.

Two players: every pair plays on every configuration, ``games`` times, the seats swapped every
other game. Three or four players: every table of that many bots (or a seeded balanced sample of
tables) plays every seat order (``hexarena.leagues.schedule.seating``: all 6 with 3 players; all 24 with 4, or the
balanced 4 when ``sample`` is set or ``games`` is not a multiple of 24). A *table* is a set of bots
in a fixed base order (by key); game ``i`` of a table seats it in order ``i % len(orders)``, and
the games of one cycle (one pass through the orders) share one seed, so they start from the same
position and randomness. With a gauntlet, only the tables with the gauntlet bot are played.

A board with start positions (``openings``) plays all of this once per start position: each is
played in every seat order of every cycle (a seat-swapped pair with 2 players).

Ids hash the league name, the configuration, the seat keys (``name@version-hash``) in seat order,
the game index and, only when there is one, the start position, and, only when it is not 0, the league's
edition (``hexarena.leagues.results.definitions.Definition``: its terms of play were replaced), and nothing else: adding a bot adds
games without changing any existing id, and a new version of a bot gives its games new ids (so they
are played again).

Order: cycle by cycle, and within a cycle round by round, every rotation and configuration of the
round's tables; in a round each bot sits at one table at most (2 players: the circle method, n − 1
rounds; 3–4 players: greedy, as far as possible). So partial results are balanced at every point.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from math import comb

from hexarena.leagues.schedule.config import LeagueConfig
from hexarena.leagues.schedule.seating import seated
from hexarena.referee.record import BoardConfig


@dataclass(frozen=True)
class Entrant:
    """A bot in a league: ``label`` names it in records and tables, ``key`` identifies its exact version."""

    label: str
    key: str


@dataclass(frozen=True)
class ScheduledGame:
    id: str
    config: BoardConfig
    seats: tuple[str, ...]  # entrant labels in seat order
    seed: int
    round: int  # position in the interleaving: cycle * rounds + round
    opening: tuple[int, ...] = ()  # the start position: lines drawn before the first TURN


def schedule(league: LeagueConfig, entrants: list[Entrant], edition: int = 0) -> list[ScheduledGame]:
    """Every game of the league, in playing order (see the module docstring)."""
    k = league.players
    ordered = sorted(entrants, key=lambda e: e.key)
    hero = gauntlet_entrant(ordered, league.gauntlet) if league.gauntlet else None
    others = [e for e in ordered if e != hero]
    rng = random.Random(f"{league.name}:{league.seed}")
    if hero is not None:  # the gauntlet bot at every table, the others drawn (balanced) or all
        rest = (balanced_sample(others, k - 1, league.sample, rng) if league.sample and league.sample < comb(len(others), k - 1)
                else [list(t) for t in itertools.combinations(others, k - 1)])
        tables = [sorted([hero, *table], key=lambda e: e.key) for table in rest]
    elif league.sample and league.sample < comb(len(ordered), k):
        tables = balanced_sample(ordered, k, league.sample, rng)
    else:
        tables = [list(t) for t in itertools.combinations(ordered, k)]
    if k == 2:
        rounds = [[pair for pair in r if hero is None or hero in pair] for r in circle_rounds(ordered)]
        rounds = [r for r in rounds if r]
    else:
        rounds = split_into_rounds(tables)
    orders = league.seat_orders
    positions = [league.start_positions(c) for c in range(len(league.configs))]
    games = []
    for cycle in range(league.games // len(orders)):
        for number, tables_in_round in enumerate(rounds):
            seeds = {(c, i): derive_seed(league.seed, league.name, config, [e.key for e in table], cycle)
                     for c, config in enumerate(league.configs) for i, table in enumerate(tables_in_round)}
            for index, order in enumerate(orders):
                for c, config in enumerate(league.configs):
                    for opening in positions[c]:
                        for i, table in enumerate(tables_in_round):
                            seats = seated(table, order)
                            keys = tuple(e.key for e in seats)
                            games.append(ScheduledGame(
                                id=game_id(league.name, config, keys, cycle * len(orders) + index, opening, edition),
                                config=config,
                                seats=tuple(e.label for e in seats),
                                seed=seeds[c, i],
                                round=cycle * len(rounds) + number,
                                opening=opening,
                            ))
    return games


def gauntlet_entrant(entrants: list[Entrant], text: str) -> Entrant | None:
    """The entrant a ``gauntlet`` names: by label, by name, or by ``name@hash`` (a prefix of the hash)."""
    for entrant in entrants:
        name, _, version = entrant.key.partition("@")
        wanted, _, prefix = text.partition("@")
        if text == entrant.label or (wanted == name and version.startswith(prefix)):
            return entrant
    return None


def _digest(*parts: object) -> bytes:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()


@cache
def _config_key(config: BoardConfig) -> str:
    return json.dumps(config.model_dump(), sort_keys=True)


def game_id(league: str, config: BoardConfig, seat_keys: Sequence[str], index: int,
            opening: Sequence[int] = (), edition: int = 0) -> str:
    """16 hex digits: stable for the same league name, configuration, seats, game index, start position and
    edition (a game without a start position, of edition 0, hashes exactly as before either existed)."""
    extra = ("opening", ",".join(map(str, opening))) if opening else ()
    extra += ("edition", edition) if edition else ()
    return _digest(league, _config_key(config), *seat_keys, index, *extra).hex()[:16]


def derive_seed(league_seed: int, league: str, config: BoardConfig, table_keys: Sequence[str], cycle: int) -> int:
    """The seed of every rotation in one cycle of one table (31 bits, fits any bot's integer type)."""
    return int.from_bytes(_digest(league_seed, league, _config_key(config), *table_keys, cycle)[:4]) >> 1


def circle_rounds(entrants: list[Entrant]) -> list[list[list[Entrant]]]:
    """Every pair, in n − 1 rounds (n even; one bot sits out each round when n is odd): the circle method."""
    circle: list[Entrant | None] = list(entrants) + [None] * (len(entrants) % 2)
    rounds = []
    for _ in range(len(circle) - 1):
        pairs = zip(circle[: len(circle) // 2], reversed(circle[len(circle) // 2:]))
        rounds.append([sorted(pair, key=lambda e: e.key) for pair in pairs if None not in pair])
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return rounds


def split_into_rounds(tables: list[list[Entrant]]) -> list[list[list[Entrant]]]:
    """Greedy: each round takes, in order, every remaining table none of whose bots already sits in it."""
    rounds = []
    remaining = tables
    while remaining:
        busy: set[str] = set()
        this_round, later = [], []
        for table in remaining:
            keys = {e.key for e in table}
            if busy.isdisjoint(keys):
                busy |= keys
                this_round.append(table)
            else:
                later.append(table)
        rounds.append(this_round)
        remaining = later
    return rounds


def balanced_sample(entrants: list[Entrant], k: int, count: int, rng: random.Random) -> list[list[Entrant]]:
    """``count`` distinct tables of ``k`` bots such that every bot plays, and every pair meets, about equally often.

    A greedy draw balances the plays (each seat goes to a least-used bot, among those to the one that
    has met the seated ones least; ties by ``rng``). Simulated
    annealing then exchanges two bots between two tables, which keeps the plays and lowers
    Σ meetings², pushing every pair towards the average.
    """
    n = len(entrants)
    meets = [[0] * n for _ in range(n)]
    used = [0] * n

    def seat(table: list[int], position: int, newcomer: int) -> int:
        """Put ``newcomer`` at ``position``; return the change in Σ meetings²."""
        leaving, others = table[position], table[:position] + table[position + 1:]
        change = 0
        for other in others:
            change += 2 * (meets[newcomer][other] - meets[leaving][other] + 1)
            meets[leaving][other] -= 1
            meets[other][leaving] -= 1
            meets[newcomer][other] += 1
            meets[other][newcomer] += 1
        table[position] = newcomer
        return change

    tables: list[list[int]] = []
    chosen: set[frozenset[int]] = set()
    while len(tables) < count:
        table = [min(range(n), key=lambda b: (used[b], rng.random()))]
        while len(table) < k:
            free = [b for b in range(n) if b not in table]
            table.append(min(free, key=lambda b: (used[b], sum(meets[b][t] for t in table), rng.random())))
        for attempt in range(1000):  # the greedy choice repeats a table: take least-used bots at random instead
            if frozenset(table) not in chosen:
                break
            table = sorted(range(n), key=lambda b: (used[b] + rng.random() * (1 + attempt // 100)))[:k]
        chosen.add(frozenset(table))
        for a, b in itertools.combinations(table, 2):
            meets[a][b] += 1
            meets[b][a] += 1
        for b in table:
            used[b] += 1
        tables.append(table)
    steps = min(500 * count, 100_000)
    for step in range(steps):
        heat = 0.5 * (1 - step / steps)  # early on accept some worse exchanges, to leave local minima
        one, two = rng.sample(tables, 2) if count > 1 else (tables[0], tables[0])
        i, j = rng.randrange(k), rng.randrange(k)
        x, y = one[i], two[j]
        if one is two or y in one or x in two:
            continue
        new_one, new_two = frozenset(one) - {x} | {y}, frozenset(two) - {y} | {x}
        if new_one in chosen or new_two in chosen:
            continue
        change = seat(one, i, y) + seat(two, j, x)
        if change <= 0 or rng.random() < math.exp(-change / max(heat, 1e-9)):
            chosen -= {new_one - {y} | {x}, new_two - {x} | {y}}
            chosen |= {new_one, new_two}
        else:
            seat(two, j, y)
            seat(one, i, x)
    return [[entrants[b] for b in sorted(table)] for table in tables]


def meeting_games(league: LeagueConfig, table: Sequence[Entrant], number: int, edition: int = 0) -> list[ScheduledGame]:
    """The games of a pair's ``number``-th meeting in an adaptive league (``hexarena.leagues.results.adaptive``):
    every seat order from one configuration and start position, meetings going through the configurations and
    their start positions in turn, then the next cycle. Ids and seeds are the round robin's (``schedule``): a
    league switched from one pairing to the other keeps the games it played."""
    ordered = sorted(table, key=lambda e: e.key)
    keys = [e.key for e in ordered]
    places = [(c, opening) for c in range(len(league.configs)) for opening in league.start_positions(c)]
    c, opening = places[number % len(places)]
    cycle = number // len(places)
    config = league.configs[c]
    orders = league.seat_orders
    seed = derive_seed(league.seed, league.name, config, keys, cycle)
    games = []
    for index, order in enumerate(orders):
        seats = seated(ordered, order)
        games.append(ScheduledGame(
            id=game_id(league.name, config, tuple(e.key for e in seats), cycle * len(orders) + index, opening, edition),
            config=config, seats=tuple(e.label for e in seats), seed=seed, round=number, opening=opening))
    return games
